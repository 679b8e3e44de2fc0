// docs/walkthrough.md, step 6: Alice shares the lock with Bob (EdDSA, her certificate chain in
// x5c), then Bob unlocks it with his legacy RSA key (RS256). Keys are read from $WALK_DIR.
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { executeOperation, signOperation } from '../../src/client/index.js';

const { BASE_URL, ALICE_TOKEN, BOB_TOKEN, LOCK_ID, WALK_DIR } = process.env;
if (!BASE_URL || !ALICE_TOKEN || !BOB_TOKEN || !LOCK_ID || !WALK_DIR) throw new Error('set BASE_URL, ALICE_TOKEN, BOB_TOKEN, LOCK_ID and WALK_DIR first (docs/walkthrough.md)');

const subject = (token: string): string => (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { sub: string }).sub;
const alice = JSON.parse(readFileSync(join(WALK_DIR, 'alice-key.json'), 'utf8')) as { pkcs8: string; publicKeyBase64: string; chain: string[] };
const bob = JSON.parse(readFileSync(join(WALK_DIR, 'bob.json'), 'utf8')) as { privateKey: string; publicKey: string };
const privateKey = createPrivateKey({ key: Buffer.from(alice.pkcs8, 'base64'), format: 'der', type: 'pkcs8' });
const key = { privateKey, publicKey: createPublicKey(privateKey), publicKeyBase64: alice.publicKeyBase64 };

const share = signOperation({
  key, certificateChain: alice.chain, userId: subject(ALICE_TOKEN), lockId: LOCK_ID, lifetimeSeconds: 60,
  operation: { type: 'ADD_USER', user: subject(BOB_TOKEN), publicKey: bob.publicKey },
});
await executeOperation(BASE_URL, ALICE_TOKEN, LOCK_ID, share);
console.log('shared with Bob');

const unlock = signOperation({ rsaPrivateKey: bob.privateKey, userId: subject(BOB_TOKEN), lockId: LOCK_ID, operation: { type: 'MUTATE_LOCK', locked: false } });
await executeOperation(BASE_URL, BOB_TOKEN, LOCK_ID, unlock);
console.log('unlocked by Bob');
