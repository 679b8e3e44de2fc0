import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { LockConfig } from '../../src/device-protocol/payloads.js';
import { CommandChecker } from '../../src/lock-edge/command-check.js';

const LOCK = randomUUID();
const NOW = 1_767_225_600;
const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const user = { userId: randomUUID(), publicKey: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'), role: 'USER' as const, start: null, end: null };
const config: LockConfig = { version: 1, unlockDuration: 5, unlockBetween: null, users: [user] };
const unlock = { type: 'MUTATE_LOCK', locked: false };

function sign(claims: Record<string, unknown> = {}, operation: object = unlock): Promise<string> {
  return new SignJWT({ iss: user.userId, sub: LOCK, iat: NOW, nbf: NOW, exp: NOW + 30, jti: randomUUID(), operation, ...claims })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
    .sign(privateKey);
}

function checker(now = NOW): CommandChecker {
  return new CommandChecker({ lockId: LOCK, now: () => now });
}

const command = (token: string, operation: object = unlock) => ({ id: 'c1', token, operation: operation as { type: string } });

async function refusal(check: CommandChecker, token: string, cfg: LockConfig | null = config, operation: object = unlock): Promise<string> {
  const result = await check.check(command(token, operation), cfg);
  assert.equal(result.ok, false);
  return result.ok ? '' : result.error;
}

describe('the lock\'s own check of a command', () => {
  it('accepts a valid token once, also re-encoded in standard Base64 with padding, then refuses the replay', async () => {
    const check = checker();
    const token = await sign({ jti: undefined });
    const result = await check.check(command(token), config);
    assert.deepEqual(result, { ok: true, userId: user.userId, operation: { type: 'MUTATE_LOCK', locked: false } });
    const [h, p, s] = token.split('.') as [string, string, string];
    const standard = Buffer.from(s, 'base64url').toString('base64');
    // Same bytes signed, signature re-encoded: without a jti the hash key still sees a replay.
    assert.match(await refusal(check, `${h}.${p}.${standard}`), /^replayed/);
  });

  it('refuses expired, not yet valid and foreign-lock tokens', async () => {
    assert.match(await refusal(checker(NOW + 31), await sign()), /^token_expired/);
    assert.match(await refusal(checker(NOW - 100), await sign()), /^token_not_yet_valid/);
    assert.match(await refusal(checker(), await sign({ sub: randomUUID() })), /^bad_request: sub/);
    assert.match(await refusal(checker(), await sign({ exp: NOW + 3631 })), /^bad_request: exp - iat/);
  });

  it('lets a USER ask for a shorter unlock than the config\'s, never a longer one; an ADMIN for any', async () => {
    const longer = { type: 'MUTATE_LOCK', locked: false, duration: 6 };
    assert.match(await refusal(checker(), await sign({}, longer), config, longer), /^duration_not_allowed/);
    const shorter = { type: 'MUTATE_LOCK', locked: false, duration: 5 };
    assert.equal((await checker().check(command(await sign({}, shorter), shorter), config)).ok, true);
    const asAdmin = { ...config, users: [{ ...user, role: 'ADMIN' as const }] };
    assert.equal((await checker().check(command(await sign({}, longer), longer), asAdmin)).ok, true);
  });

  it('operates for a user with their own hours only inside them (shared decisions §8), as the service does', async () => {
    // NOW is Thursday 1 January 2026, 00:00 UTC.
    const inside = { ...config, users: [{ ...user, schedule: [{ start: '00:00', end: '01:00', timezone: 'UTC', days: ['THURSDAY' as const] }] }] };
    assert.equal((await checker().check(command(await sign()), inside)).ok, true);
    const outside = { ...config, users: [{ ...user, schedule: [{ start: '08:00', end: '18:00', timezone: 'Europe/London', days: ['MONDAY' as const, 'THURSDAY' as const] }] }] };
    assert.match(await refusal(checker(), await sign(), outside), /^outside_user_schedule/);
    const asAdmin = { ...outside, users: [{ ...outside.users[0]!, role: 'ADMIN' as const }] };
    assert.match(await refusal(checker(), await sign(), asAdmin), /^outside_user_schedule/, "a share's own hours bind an ADMIN too");
  });

  it('refuses without a config, for a stranger, and outside the user\'s window', async () => {
    assert.match(await refusal(checker(), await sign(), null), /^not_enrolled/);
    assert.match(await refusal(checker(), await sign({ iss: randomUUID() })), /^not_enrolled/);
    const later = { ...config, users: [{ ...user, start: NOW + 60 }] };
    assert.match(await refusal(checker(), await sign(), later), /^outside_user_window/);
    const ended = { ...config, users: [{ ...user, end: NOW }] };
    assert.match(await refusal(checker(), await sign(), ended), /^outside_user_window/);
  });

  it('refuses a user without an RSA key, an EdDSA token without a trusted root, and a forged signature', async () => {
    const keyless = { ...config, users: [{ ...user, publicKey: null }] };
    assert.match(await refusal(checker(), await sign(), keyless), /^bad_signature/);
    const ed = generateKeyPairSync('ed25519');
    const edToken = await new SignJWT({ iss: user.userId, sub: LOCK, iat: NOW, exp: NOW + 30, operation: unlock })
      .setProtectedHeader({ alg: 'EdDSA', x5c: ['AAAA'] }).sign(ed.privateKey);
    assert.match(await refusal(checker(), edToken), /^bad_signature: no trusted root/);
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const forged = await new SignJWT({ iss: user.userId, sub: LOCK, iat: NOW, exp: NOW + 30, operation: unlock })
      .setProtectedHeader({ alg: 'RS256' }).sign(other.privateKey);
    assert.match(await refusal(checker(), forged), /^bad_signature/);
  });

  it('refuses a command past its deadline (protocol 1.2) without using its token up', async () => {
    const check = checker();
    const token = await sign();
    const late = await check.check({ ...command(token), deadline: NOW - 0.001 }, config);
    assert.equal(late.ok, false);
    assert.match(late.ok ? '' : late.error, /^deadline_passed/);
    assert.equal((await check.check({ ...command(token), deadline: NOW }, config)).ok, true);
  });

  it('refuses a command whose operation differs from the signed one', async () => {
    const check = checker();
    assert.match(await refusal(check, await sign(), config, { type: 'MUTATE_LOCK', locked: false, duration: 3600 }), /^operation_mismatch/);
    assert.match(await refusal(check, await sign(), config, { type: 'NOPE' }), /^operation_mismatch/);
  });
});
