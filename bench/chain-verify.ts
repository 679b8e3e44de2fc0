// Microseconds per verifyCertificateChain: cold (every certificate parsed, every signature
// checked), a new leaf under cached issuers (leaf parse + one signature), a repeated chain (hash +
// date checks), and a whole EdDSA operation token. Not a test. Run: node --import tsx bench/chain-verify.ts
import { generateKeyPairSync, randomUUID, sign, verify } from 'node:crypto';
import { SignJWT } from 'jose';
import { createCertificateAuthority, createTrustAnchor, issueLeafCertificate, verifyCertificateChain } from '../src/crypto/pki.js';
import { verifyOperationSignature } from '../src/crypto/operation-token.js';
import { decodeOperationToken } from '../src/operations/body.js';

const now = Math.floor(Date.now() / 1000);
const ca = await createCertificateAuthority({ name: 'Bench', now });
const users = Array.from({ length: 100 }, () => ({ id: randomUUID(), keys: generateKeyPairSync('ed25519') }));
const chains = await Promise.all(users.map((u) => issueLeafCertificate(ca, { userId: u.id, publicKey: u.keys.publicKey, now })));

async function measure(label: string, iterations: number, run: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < Math.min(200, iterations); i++) await run(i);
  // CPU time as well as wall time: on a shared machine the wall clock mostly measures the neighbours.
  const cpuStart = process.cpuUsage();
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) await run(i);
  const wall = Number(process.hrtime.bigint() - start) / 1000 / iterations;
  const cpuUsed = process.cpuUsage(cpuStart);
  const cpu = (cpuUsed.user + cpuUsed.system) / iterations;
  console.log(`${label.padEnd(52)} ${cpu.toFixed(1).padStart(8)} µs CPU ${wall.toFixed(1).padStart(8)} µs wall`);
}

const anchor = createTrustAnchor(ca.root.der);
const { publicKey, privateKey } = users[0]!.keys;
const signature = sign(null, Buffer.from('baseline'), privateKey);
await measure('baseline: one Ed25519 verify (node:crypto)', 20000, async () => verify(null, Buffer.from('baseline'), publicKey, signature));
// Anchors with a one-entry chain cache, so that alternating leaves always miss it.
await measure('verifyCertificateChain cold (new anchor each time)', 5000, (i) =>
  verifyCertificateChain(chains[i % 100]!, createTrustAnchor(ca.root.der, { chainCacheSize: 1 }), now));
const missing = createTrustAnchor(ca.root.der, { chainCacheSize: 1 });
await measure('verifyCertificateChain new leaf, issuers cached', 5000, (i) => verifyCertificateChain(chains[i % 100]!, missing, now));
await measure('verifyCertificateChain warm (same leaf)', 20000, () => verifyCertificateChain(chains[0]!, anchor, now));
await measure('verifyCertificateChain warm (100 different leaves)', 20000, (i) => verifyCertificateChain(chains[i % 100]!, anchor, now));
await measure('verifyCertificateChain warm, root passed as DER', 20000, (i) => verifyCertificateChain(chains[i % 100]!, ca.root.der, now));

const tokens = await Promise.all(
  users.map((u, i) =>
    new SignJWT({ iss: u.id, sub: randomUUID(), iat: now, nbf: now, exp: now + 60, jti: randomUUID(), operation: { type: 'MUTATE_LOCK', locked: false } })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT', x5c: chains[i]! })
      .sign(u.keys.privateKey),
  ),
);
await measure('decodeOperationToken alone', 20000, async (i) => decodeOperationToken(tokens[i % 100]!));
await measure('decode + verifyOperationSignature (EdDSA, warm)', 20000, (i) => verifyOperationSignature(decodeOperationToken(tokens[i % 100]!), { trustedRoot: anchor, now }));
