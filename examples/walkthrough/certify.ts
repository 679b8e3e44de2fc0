// docs/walkthrough.md, step 3: Alice makes an ephemeral key and has the service certify it.
//   node --import tsx examples/walkthrough/certify.ts          makes the key, asks for a certificate
//   node --import tsx examples/walkthrough/certify.ts CODE     completes it with the emailed code
// The key (private!) is kept in $WALK_DIR/alice-key.json, outside the checkout.
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkCertificate, generateEphemeralKey, requestCertificate, verifyCertificate, type EphemeralKey } from '../../src/client/index.js';

const { BASE_URL, ALICE_TOKEN, WALK_DIR } = process.env;
if (!BASE_URL || !ALICE_TOKEN || !WALK_DIR) throw new Error('set BASE_URL, ALICE_TOKEN and WALK_DIR first (docs/walkthrough.md)');
const file = join(WALK_DIR, 'alice-key.json');
const code = process.argv[2];

function load(): EphemeralKey {
  const { pkcs8, publicKeyBase64 } = JSON.parse(readFileSync(file, 'utf8')) as { pkcs8: string; publicKeyBase64: string };
  const privateKey = createPrivateKey({ key: Buffer.from(pkcs8, 'base64'), format: 'der', type: 'pkcs8' });
  return { privateKey, publicKey: createPublicKey(privateKey), publicKeyBase64 };
}

function save(key: EphemeralKey, chain?: string[]): void {
  const pkcs8 = key.privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
  writeFileSync(file, JSON.stringify({ pkcs8, publicKeyBase64: key.publicKeyBase64, chain }), { mode: 0o600 });
}

if (code === undefined) {
  const key = generateEphemeralKey();
  const result = await requestCertificate(BASE_URL, ALICE_TOKEN, key);
  if ('needsVerification' in result) {
    save(key);
    await verifyCertificate(BASE_URL, ALICE_TOKEN, key, 'EMAIL');
    console.log('a new key needs a code: it was emailed; run again with the code');
  } else {
    save(key, result.certificateChain);
    console.log('certified');
  }
} else {
  const key = load();
  const result = await checkCertificate(BASE_URL, ALICE_TOKEN, key, code);
  save(key, result.certificateChain);
  console.log(`certified: a chain of ${result.certificateChain.length} certificates for ${result.userId}`);
}
