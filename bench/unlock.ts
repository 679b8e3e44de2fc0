// Unlock end to end: HTTP → token and chain verification → replay store → MQTT → in-process
// simulated lock (which verifies the token again) → reply → audit → 200. Tokens are EdDSA,
// pre-signed, each with its own jti. Prints p50/p99 at a fixed 100 unlocks/s for 10 s, peak
// throughput with 20 requests in flight, and the machine's raw Ed25519 verifications per second
// for scale. The HTTP client runs in this process too (it shares the CPU). Not a test.
// Run: node --import tsx bench/unlock.ts
import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { generateEphemeralKey, requestCertificate, signOperation } from '../src/client/index.js';
import { provisionLock } from '../src/locks/provision.js';
import { runSimulator } from '../src/simulator/run-simulator.js';
import { percentile, startBenchService } from './lib.js';

const RATE = 100;
const FIXED_SECONDS = 10;
const PEAK_SECONDS = 8;
const CONCURRENCY = 20;

const { service, close } = await startBenchService({ CERT_CHECK: 'never', LOG_LEVEL: 'error' });
const { ctx } = service;
const base = service.url;

async function post(path: string, body: string, token?: string, contentType = 'application/json'): Promise<Response> {
  return fetch(base + path, { method: 'POST', headers: { 'content-type': contentType, ...(token ? { authorization: `Bearer ${token}` } : {}) }, body });
}

// A user with a certified ephemeral key, owning one lock run by the simulator.
const registered = (await (await post('/auth/register', JSON.stringify({ email: `bench-${Date.now()}@example.com`, password: 'correct horse battery' }))).json()) as { authToken: string };
const authToken = registered.authToken;
const userId = JSON.parse(Buffer.from(authToken.split('.')[1]!, 'base64url').toString()).sub as string;
const key = generateEphemeralKey();
const certificate = await requestCertificate(base, authToken, key);
if ('needsVerification' in certificate) throw new Error('CERT_CHECK=never expected');
const provisioned = await provisionLock(ctx.db.kysely, { name: 'Bench door' }, ctx.now());
const claim = await post('/device', JSON.stringify({ key: provisioned.registrationKey, name: 'Bench door' }), authToken);
if (claim.status !== 200) throw new Error(`claim failed: ${claim.status}`);
const simulator = await runSimulator({
  id: provisioned.id, secret: provisioned.secret, mqttUrl: `mqtt://127.0.0.1:${ctx.broker!.port}`,
  trustedRoot: ctx.pki.rootCertificate, stdin: new PassThrough(), stdout: new PassThrough(),
});

const unlockToken = () => signOperation({ key, certificateChain: certificate.certificateChain, userId, lockId: provisioned.id, operation: { type: 'MUTATE_LOCK', locked: false } });
const execute = (token: string) => post(`/device/${provisioned.id}/execute`, token, authToken, 'application/json;charset=UTF-8');

/** One unlock; its latency in ms, or null when it failed. */
async function timedUnlock(token: string): Promise<number | null> {
  const started = performance.now();
  const response = await execute(token);
  await response.arrayBuffer();
  return response.status === 200 ? performance.now() - started : null;
}

// Wait for the lock to be online with a configuration listing the user.
for (let attempt = 0; ; attempt++) {
  if ((await execute(unlockToken())).status === 200) break;
  if (attempt > 200) throw new Error('the simulated lock never accepted an unlock');
  await new Promise((resolve) => setTimeout(resolve, 50));
}
// Warm-up.
for (let i = 0; i < 200; i++) await timedUnlock(unlockToken());

async function fixedRate(): Promise<{ latencies: number[]; failures: number }> {
  const tokens = Array.from({ length: RATE * FIXED_SECONDS }, unlockToken);
  const results: Array<Promise<number | null>> = [];
  const start = performance.now();
  for (let i = 0; i < tokens.length; i++) {
    const due = start + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    results.push(timedUnlock(tokens[i]!));
  }
  const settled = await Promise.all(results);
  const latencies = settled.filter((l): l is number => l !== null).sort((a, b) => a - b);
  return { latencies, failures: settled.length - latencies.length };
}

async function peak(): Promise<{ perSecond: number; failures: number }> {
  const tokens = Array.from({ length: 1500 * PEAK_SECONDS }, unlockToken);
  let next = 0;
  let done = 0;
  let failures = 0;
  const deadline = performance.now() + PEAK_SECONDS * 1000;
  const start = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (performance.now() < deadline && next < tokens.length) {
      const latency = await timedUnlock(tokens[next++]!);
      if (latency === null) failures += 1;
      else done += 1;
    }
  }));
  return { perSecond: done / ((performance.now() - start) / 1000), failures };
}

function ed25519VerificationsPerSecond(): number {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const data = Buffer.from('x'.repeat(300));
  const signature = sign(null, data, privateKey);
  let count = 0;
  const start = performance.now();
  while (performance.now() - start < 1000) {
    for (let i = 0; i < 100; i++) verify(null, data, publicKey, signature);
    count += 100;
  }
  return count / ((performance.now() - start) / 1000);
}

const fixed = await fixedRate();
const top = await peak();
const verifications = ed25519VerificationsPerSecond();
const fmt = (n: number) => n.toFixed(1);
console.log(`unlock end to end (SQLite, embedded broker, simulated lock in-process, ${process.arch}, 2 cores shared with the client)`);
console.log(`  fixed ${RATE}/s for ${FIXED_SECONDS} s: p50 ${fmt(percentile(fixed.latencies, 50))} ms   p99 ${fmt(percentile(fixed.latencies, 99))} ms   ok ${fixed.latencies.length}   failed ${fixed.failures}`);
console.log(`  peak with ${CONCURRENCY} in flight: ${top.perSecond.toFixed(0)} unlocks/s   failed ${top.failures}`);
console.log(`  Ed25519 verify (node:crypto, one core): ${verifications.toFixed(0)}/s   → peak unlocks ≈ 1 per ${(verifications / top.perSecond).toFixed(0)} raw verifications`);

await simulator.close();
await close();
