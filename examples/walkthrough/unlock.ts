// docs/walkthrough.md, step 7: Alice unlocks, then locks, the lock $LOCK_ID (EdDSA, her
// certificate chain in x5c), as she would any lock; it may be a real one behind the bridge.
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { executeOperation, signOperation } from '../../src/client/index.js';

const { BASE_URL, ALICE_TOKEN, LOCK_ID, WALK_DIR } = process.env;
if (!BASE_URL || !ALICE_TOKEN || !LOCK_ID || !WALK_DIR) throw new Error('set BASE_URL, ALICE_TOKEN, LOCK_ID and WALK_DIR first (docs/walkthrough.md)');

const subject = (token: string): string => (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { sub: string }).sub;
const alice = JSON.parse(readFileSync(join(WALK_DIR, 'alice-key.json'), 'utf8')) as { pkcs8: string; publicKeyBase64: string; chain: string[] };
const privateKey = createPrivateKey({ key: Buffer.from(alice.pkcs8, 'base64'), format: 'der', type: 'pkcs8' });
const key = { privateKey, publicKey: createPublicKey(privateKey), publicKeyBase64: alice.publicKeyBase64 };

for (const locked of [false, true]) {
  const token = signOperation({ key, certificateChain: alice.chain, userId: subject(ALICE_TOKEN), lockId: LOCK_ID, operation: { type: 'MUTATE_LOCK', locked } });
  await executeOperation(BASE_URL, ALICE_TOKEN, LOCK_ID, token);
  console.log(locked ? 'locked' : 'unlocked');
}
