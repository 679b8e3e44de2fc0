import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { createCertificateAuthority, issueLeafCertificate } from '../../src/crypto/pki.js';
import { signOperation } from '../../src/client/index.js';
import type { LegacyUser } from '../helpers/factories.js';
import { auditEntriesOf, claimLock, shareLock, type ClaimedLock, createVerifiedLegacyUser, createVerifiedUser } from '../helpers/locks.js';
import { createTestClock } from '../helpers/clock.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { connectTestLock } from '../helpers/test-lock.js';
import { eventually, lockReportsRecorded } from '../helpers/wait.js';
import {
  certify, claimsFor, execute, hs256Token, settingDuration, signed, unlock, unsignedToken, waitUntilOnline, type Signer,
} from './support.js';

const DAYS = ['SUNDAY', 'MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY'];

describe('execute: refusals', () => {
  // Windows and schedules are judged by this clock, not by a wall clock that may pass midnight mid-test.
  const clock = createTestClock();
  let t: TestService;
  let admin: Signer<LegacyUser>;
  let member: Signer<LegacyUser>;
  let lock: ClaimedLock;

  before(async () => {
    t = await startTestService({ CERT_CHECK: 'never', LOCK_REPLY_TIMEOUT_MS: '300' }, { clock });
    admin = await certify(t, await createVerifiedLegacyUser(t));
    member = await certify(t, await createVerifiedLegacyUser(t));
    lock = await claimLock(t, admin);
    await shareLock(t, lock.id, admin, member.userId);
  });
  after(async () => t?.close());

  /** A fresh lock where `admin` is ADMIN and `member` a USER. */
  async function freshLock(): Promise<ClaimedLock> {
    const fresh = await claimLock(t, admin);
    await shareLock(t, fresh.id, admin, member.userId);
    return fresh;
  }

  it('answers 404 to non-members and for unknown or malformed lock ids', async () => {
    const outsider = await certify(t, await createVerifiedUser(t));
    assert.equal((await execute(t, outsider, lock.id, signed(outsider, lock.id, unlock))).status, 404);
    const unknown = crypto.randomUUID();
    assert.equal((await execute(t, admin, unknown, signed(admin, unknown, unlock))).status, 404);
    assert.equal((await execute(t, admin, 'not-a-lock', signed(admin, lock.id, unlock))).status, 404);
  });

  it('answers 409 to a reused jti, and to a token without jti sent twice', async () => {
    const token = signed(admin, lock.id, settingDuration(7));
    assert.equal((await execute(t, admin, lock.id, token)).status, 200);
    const again = await execute(t, admin, lock.id, token);
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 409.1);
    assert.equal(again.body.error, 'jti_reused');

    const noJti = signed(admin, lock.id, settingDuration(8), { jti: null });
    assert.equal((await execute(t, admin, lock.id, noJti)).status, 200);
    assert.equal((await execute(t, admin, lock.id, noJti)).status, 409);
    // The same bytes with a padded, standard-alphabet signature are still the same token.
    const [h, p, s] = noJti.split('.');
    const reencoded = `${h}.${p}.${Buffer.from(s!, 'base64url').toString('base64')}`;
    assert.equal((await execute(t, admin, lock.id, reencoded)).status, 409);
  });

  it('answers 400 to a jti that is not text a database stores as it is (a NUL, half a surrogate pair), and uses nothing', async () => {
    for (const jti of ['a\u0000b', 'a\ud800b', '\udc00']) {
      const res = await execute(t, admin, lock.id, signed(admin, lock.id, settingDuration(9), { jti }));
      assert.equal(res.status, 400, JSON.stringify(jti));
      assert.match(res.text, /jti must be text without NUL characters or lone surrogates/);
    }
    const used = await t.service.ctx.db.kysely.selectFrom('used_operation_tokens').select('replay_key').where('lock_id', '=', lock.id).execute();
    assert.equal(used.filter((row) => /\ufffd|\u0000/.test(row.replay_key)).length, 0);
  });

  it('keeps the jti of each sender apart: two admins of one lock may pick the same one', async () => {
    const fresh = await claimLock(t, admin);
    const second = await certify(t, await createVerifiedUser(t));
    await shareLock(t, fresh.id, admin, second.userId, { role: 'ADMIN' });
    const jti = 'request-1';
    assert.equal((await execute(t, admin, fresh.id, signed(admin, fresh.id, settingDuration(10), { jti }))).status, 200);
    assert.equal((await execute(t, second, fresh.id, signed(second, fresh.id, settingDuration(11), { jti }))).status, 200);
    assert.equal((await execute(t, second, fresh.id, signed(second, fresh.id, settingDuration(12), { jti }))).status, 409);
  });

  it('lets exactly one of 20 concurrent copies through', async () => {
    const token = signed(admin, lock.id, settingDuration(9));
    const statuses = (await Promise.all(Array.from({ length: 20 }, () => execute(t, admin, lock.id, token)))).map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 200).length, 1, statuses.join(','));
    assert.equal(statuses.filter((s) => s === 409).length, 19, statuses.join(','));
  });

  it('refuses forged tokens with 401: alg none, HS256, a foreign CA, another user\'s chain, an expired leaf', async () => {
    const claims = claimsFor(admin.userId, lock.id, settingDuration(10), clock.now());
    assert.equal((await execute(t, admin, lock.id, unsignedToken(claims))).status, 401);
    assert.equal((await execute(t, admin, lock.id, hs256Token(claims, admin.publicKey))).status, 401);

    const foreign = await createCertificateAuthority({ name: 'Mallory', now: Date.now() / 1000 });
    const foreignChain = await issueLeafCertificate(foreign, { userId: admin.userId, publicKey: admin.key.publicKey, now: Date.now() / 1000 });
    const byForeignCa = signOperation({ key: admin.key, certificateChain: foreignChain, userId: admin.userId, lockId: lock.id, operation: settingDuration(10), now: clock.now() });
    assert.equal((await execute(t, admin, lock.id, byForeignCa)).status, 401);

    // The member's genuine chain and key, claiming to be the admin.
    const borrowed = signOperation({ key: member.key, certificateChain: member.certificateChain, userId: admin.userId, lockId: lock.id, operation: settingDuration(10), now: clock.now() });
    assert.equal((await execute(t, admin, lock.id, borrowed)).status, 401);

    const past = Date.now() / 1000 - 10 * 24 * 3600;
    const expiredChain = await issueLeafCertificate(t.service.ctx.pki.ca, { userId: admin.userId, publicKey: admin.key.publicKey, now: past, lifetimeSeconds: 3600 });
    const byExpiredLeaf = signOperation({ key: admin.key, certificateChain: expiredChain, userId: admin.userId, lockId: lock.id, operation: settingDuration(10), now: clock.now() });
    assert.equal((await execute(t, admin, lock.id, byExpiredLeaf)).status, 401);

    // A valid signature over other bytes.
    const genuine = signed(admin, lock.id, settingDuration(10));
    const [h, , s] = genuine.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify(claimsFor(admin.userId, lock.id, settingDuration(11), clock.now()))).toString('base64url')}.${s}`;
    assert.equal((await execute(t, admin, lock.id, tampered)).status, 401);
  });

  it("audits a member's refused tokens as rejected attempts: a signature that does not verify, another member's token, an expired leaf", async () => {
    const fresh = await freshLock();
    const borrowed = signOperation({ key: member.key, certificateChain: member.certificateChain, userId: admin.userId, lockId: fresh.id, operation: unlock, now: clock.now() });
    assert.equal((await execute(t, admin, fresh.id, borrowed)).status, 401);
    assert.equal((await execute(t, admin, fresh.id, signed(member, fresh.id, { type: 'MUTATE_LOCK', locked: true }))).status, 403);
    const genuine = signed(member, fresh.id, { type: 'REMOVE_USER', users: [admin.userId] });
    const [h, , sig] = genuine.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify(claimsFor(member.userId, fresh.id, { type: 'ADD_USER', user: member.userId, publicKey: member.publicKey, role: 'ADMIN' }, clock.now()))).toString('base64url')}.${sig}`;
    assert.equal((await execute(t, member, fresh.id, tampered)).status, 401);
    assert.equal((await execute(t, member, fresh.id, 'not a token')).status, 400, 'an unreadable body names no attempt');
    const refused = (await auditEntriesOf(t, fresh.id)).filter((e) => e.rejected === 1);
    assert.deepEqual(
      refused.map((e) => [e.type, e.actor_user_id, e.subject_user_id]),
      [['DOOR_UNLOCK', admin.userId, null], ['DOOR_LOCK', admin.userId, null], ['LOCK_SHARED', member.userId, null]],
    );
    assert.deepEqual(refused.map((e) => e.message), [
      'unlock refused: certificate does not belong to iss',
      'lock refused: iss must be the authenticated user',
      'share refused: signature invalid',
    ]);
  });

  it('checks claims: lifetime over an hour for MUTATE_LOCK 400, iss not the caller 403, sub another lock 400, malformed 400', async () => {
    assert.equal((await execute(t, admin, lock.id, signed(admin, lock.id, unlock, { lifetimeSeconds: 3700 }))).status, 400);
    assert.equal((await execute(t, admin, lock.id, signed(member, lock.id, settingDuration(12)))).status, 403);
    const other = await claimLock(t, admin);
    assert.equal((await execute(t, admin, lock.id, signed(admin, other.id, settingDuration(12)))).status, 400);
    assert.equal((await execute(t, admin, lock.id, 'not a token')).status, 400);
    assert.equal((await execute(t, admin, lock.id, signed(admin, lock.id, settingDuration(12)), 'image/png')).status, 415);
  });

  it('keeps USERs from ADD_USER, MUTATE_SETTING and REMOVE_USER of others (403, audited)', async () => {
    const fresh = await freshLock();
    const invitee = await createVerifiedUser(t);
    const add = signed(member, fresh.id, { type: 'ADD_USER', user: invitee.userId, publicKey: invitee.key.publicKeyBase64 });
    assert.equal((await execute(t, member, fresh.id, add)).status, 403);
    assert.equal((await execute(t, member, fresh.id, signed(member, fresh.id, settingDuration(5)))).status, 403);
    assert.equal((await execute(t, member, fresh.id, signed(member, fresh.id, { type: 'REMOVE_USER', users: [admin.userId] }))).status, 403);
    const refused = (await auditEntriesOf(t, fresh.id)).filter((e) => e.rejected === 1);
    // MUTATE_SETTING's refusal has a type of its own since issue 28 (SETTING_CHANGED, the SDK's AuditEvent).
    assert.deepEqual(refused.map((e) => [e.type, e.actor_user_id]), [['LOCK_SHARED', member.userId], ['SETTING_CHANGED', member.userId], ['LOCK_REVOKED', member.userId]]);
  });

  it('refuses MUTATE_LOCK outside the member window, the time requirement or the permitted addresses (403)', async () => {
    const fresh = await freshLock();
    const later = await certify(t, await createVerifiedUser(t));
    await shareLock(t, fresh.id, admin, later.userId, { start: clock.now() + 3600 });
    assert.equal((await execute(t, later, fresh.id, signed(later, fresh.id, unlock))).status, 403);

    const today = DAYS[new Date(clock.now() * 1000).getUTCDay()]!;
    const otherDays = DAYS.filter((d) => d !== today);
    const requirements = { time: [{ start: '00:00', end: '23:59', timezone: 'UTC', days: otherDays }] };
    await t.service.ctx.db.kysely.updateTable('locks').set({ usage_requirements: JSON.stringify(requirements) }).where('id', '=', fresh.id).execute();
    const outsideTimes = await execute(t, member, fresh.id, signed(member, fresh.id, unlock));
    assert.equal(outsideTimes.status, 403);
    assert.match(outsideTimes.body.message, /time/);

    await t.service.ctx.db.kysely.updateTable('locks').set({ usage_requirements: '{}', permitted_addresses: JSON.stringify(['10.0.0.0/8']) }).where('id', '=', fresh.id).execute();
    for (const who of [member, admin]) {
      const res = await execute(t, who, fresh.id, signed(who, fresh.id, unlock));
      assert.equal(res.status, 403);
      assert.match(res.body.message, /address/);
    }
    const refusals = (await auditEntriesOf(t, fresh.id)).filter((e) => e.rejected === 1);
    assert.equal(refusals.length, 4);
    assert.ok(refusals.every((e) => e.type === 'DOOR_UNLOCK'));
  });

  it('refuses a USER\'s unlock longer than the lock\'s unlock duration (403, audited)', async () => {
    const fresh = await freshLock();
    const longer = { type: 'MUTATE_LOCK', locked: false, duration: 86_400 };
    const res = await execute(t, member, fresh.id, signed(member, fresh.id, longer));
    assert.equal(res.status, 403);
    assert.match(res.body.message, /unlock duration/);
    const [entry] = (await auditEntriesOf(t, fresh.id)).filter((e) => e.rejected === 1);
    assert.equal(entry?.type, 'DOOR_UNLOCK');
  });

  it('answers 503 when the lock is offline and 504 when it does not reply (both audited)', async () => {
    const offline = await freshLock();
    assert.equal((await execute(t, admin, offline.id, signed(admin, offline.id, unlock))).status, 503);

    const silent = await freshLock();
    const device = await connectTestLock({ url: `mqtt://127.0.0.1:${t.service.ctx.broker!.port}`, id: silent.id, secret: silent.secret, behaviour: { kind: 'silent' } });
    try {
      await waitUntilOnline(t, silent.id);
      assert.equal((await execute(t, admin, silent.id, signed(admin, silent.id, unlock))).status, 504);
    } finally {
      await device.close();
    }
    for (const id of [offline.id, silent.id]) {
      const refused = (await auditEntriesOf(t, id)).filter((e) => e.rejected === 1);
      assert.equal(refused.length, 1);
      assert.equal(refused[0]!.type, 'DOOR_UNLOCK');
    }
  });

  /** Waits until `lockId` has an unlock that was not refused, and returns the lock's trail. */
  async function untilUnlocked(lockId: string) {
    return eventually(async () => {
      const entries = await auditEntriesOf(t, lockId);
      return entries.some((e) => e.type === 'DOOR_UNLOCK' && e.rejected === 0) && entries;
    }, 'an unlock audited', 3000).catch(() => auditEntriesOf(t, lockId));
  }
  const detailsOf = (entry: { details: unknown }) => (typeof entry.details === 'string' ? JSON.parse(entry.details) : entry.details) as Record<string, unknown>;

  it('audits an unlock the lock carries out after the request timed out (504) as the user\'s: state report first', async () => {
    const late = await freshLock();
    const device = await connectTestLock({ url: `mqtt://127.0.0.1:${t.service.ctx.broker!.port}`, id: late.id, secret: late.secret, behaviour: { kind: 'silent' } });
    try {
      await waitUntilOnline(t, late.id);
      assert.equal((await execute(t, admin, late.id, signed(admin, late.id, unlock))).status, 504);
      // The door opens after all: the state report comes, then (even later) the reply.
      await device.client.publishAsync(`locks/${late.id}/state`, JSON.stringify({ locked: false, ts: Date.now() / 1000 }), { qos: 1, retain: true });
      const entries = await untilUnlocked(late.id);
      await device.client.publishAsync(`locks/${late.id}/reply`, JSON.stringify({ id: device.commands[0]!.id, ok: true }), { qos: 1 });
      await lockReportsRecorded(t);
      const unlocks = (await auditEntriesOf(t, late.id)).filter((e) => e.type === 'DOOR_UNLOCK');
      assert.equal(unlocks.length, 2, JSON.stringify(entries.map((e) => [e.type, e.rejected, e.message])));
      const [unanswered, opened] = unlocks;
      assert.equal(unanswered!.rejected, 1);
      assert.equal(unanswered!.message, 'unlock: no reply in time');
      assert.equal(opened!.rejected, 0);
      assert.equal(opened!.actor_user_id, admin.userId);
      assert.equal(detailsOf(opened!).commandId, device.commands[0]!.id);
      assert.equal(detailsOf(unanswered!).commandId, device.commands[0]!.id);
    } finally {
      await device.close();
    }
  });

  it('audits a late reply (after the 504) as the user\'s unlock, once, even with its state report after it', async () => {
    const late = await freshLock();
    const device = await connectTestLock({ url: `mqtt://127.0.0.1:${t.service.ctx.broker!.port}`, id: late.id, secret: late.secret, behaviour: { kind: 'late', delayMs: 600 } });
    try {
      await waitUntilOnline(t, late.id);
      assert.equal((await execute(t, admin, late.id, signed(admin, late.id, unlock))).status, 504);
      const entries = await untilUnlocked(late.id);
      await device.client.publishAsync(`locks/${late.id}/state`, JSON.stringify({ locked: false, ts: Date.now() / 1000 }), { qos: 1, retain: true });
      await lockReportsRecorded(t);
      const opened = (await auditEntriesOf(t, late.id)).filter((e) => e.type === 'DOOR_UNLOCK' && e.rejected === 0);
      assert.equal(opened.length, 1, JSON.stringify(entries.map((e) => [e.type, e.rejected, e.actor_user_id])));
      assert.equal(opened[0]!.actor_user_id, admin.userId);
      assert.equal(detailsOf(opened[0]!).commandId, device.commands[0]!.id);
    } finally {
      await device.close();
    }
  });

  it('honours a reply whose state is malformed for its outcome (200), ignoring the state', async () => {
    const odd = await freshLock();
    const device = await connectTestLock({ url: `mqtt://127.0.0.1:${t.service.ctx.broker!.port}`, id: odd.id, secret: odd.secret, behaviour: { kind: 'silent' } });
    device.client.on('message', (topic, payload) => {
      if (!topic.endsWith('/command')) return;
      const { id } = JSON.parse(payload.toString()) as { id: string };
      void device.client.publishAsync(`locks/${odd.id}/reply`, JSON.stringify({ id, ok: true, state: { locked: false } }), { qos: 1 });
    });
    try {
      await waitUntilOnline(t, odd.id);
      assert.equal((await execute(t, admin, odd.id, signed(admin, odd.id, unlock))).status, 200);
      const opened = (await auditEntriesOf(t, odd.id)).filter((e) => e.type === 'DOOR_UNLOCK' && e.rejected === 0);
      assert.equal(opened[0]?.actor_user_id, admin.userId);
    } finally {
      await device.close();
    }
  });

  it('accepts the legacy RS256 signature and the other body encodings', async () => {
    const user: LegacyUser = admin;
    const rs256 = signOperation({ rsaPrivateKey: user.privateKey, userId: user.userId, lockId: lock.id, operation: settingDuration(13), now: clock.now() });
    assert.equal((await execute(t, admin, lock.id, rs256)).status, 200);
    assert.equal((await execute(t, admin, lock.id, signed(admin, lock.id, settingDuration(14)), 'application/jwt')).status, 200);
    assert.equal((await execute(t, admin, lock.id, signed(admin, lock.id, settingDuration(15)), 'text/plain')).status, 200);
    assert.equal((await execute(t, admin, lock.id, JSON.stringify(signed(admin, lock.id, settingDuration(16))))).status, 200);
    // RS256 with another user's key is no signature of the caller's.
    const wrongKey = signOperation({ rsaPrivateKey: member.privateKey, userId: admin.userId, lockId: lock.id, operation: settingDuration(17), now: clock.now() });
    assert.equal((await execute(t, admin, lock.id, wrongKey)).status, 401);
    // Another member's genuine RS256 token, presented by the admin: signed, but not the caller's.
    const othersToken = signOperation({ rsaPrivateKey: member.privateKey, userId: member.userId, lockId: lock.id, operation: settingDuration(19), now: clock.now() });
    assert.equal((await execute(t, admin, lock.id, othersToken)).status, 403);
    const rsaOnly = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
    assert.equal((await execute(t, admin, lock.id, signOperation({ rsaPrivateKey: rsaOnly, userId: admin.userId, lockId: lock.id, operation: settingDuration(18), now: clock.now() }))).status, 401);
  });
});
