import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { lockConfig } from '../../src/locks/config.js';
import { createTestClock } from '../helpers/clock.js';
import { auditEntriesOf, claimLock, createVerifiedUser } from '../helpers/locks.js';
import { useService } from '../helpers/service.js';
import { connectTestLock, type TestLock } from '../helpers/test-lock.js';
import { certify, execute, signed, unlock, waitUntilOnline, type Signer } from './support.js';

/** Monday 30 November 2026, 10:00 in London (UTC in winter). */
const MONDAY_10 = 1_796_032_800;
const WEEKDAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'] as const;
const OFFICE_HOURS = [{ start: '08:00', end: '18:00', timezone: 'Europe/London', days: [...WEEKDAYS] }];

/**
 * Per-person hours (shared decisions §8, issue 29): ADD_USER's optional `schedule` limits when that
 * member may operate the lock, on top of the share's start and end and the lock's own rules; it is
 * carried in the lock's configuration and shown to the member; clients that do not send it change
 * nothing.
 */
describe('execute: a share with its own weekly hours', () => {
  const clock = createTestClock(MONDAY_10);
  const t = useService({ clock, env: { CERT_CHECK: 'never' } });
  let manager: Signer;
  let staff: Signer;
  let lockId: string;
  let device: TestLock;

  before(async () => {
    manager = await certify(t, await createVerifiedUser(t));
    staff = await certify(t, await createVerifiedUser(t));
    const claimed = await claimLock(t, manager, { name: 'Stock room' });
    lockId = claimed.id;
    device = await connectTestLock({ url: `mqtt://127.0.0.1:${t.service.ctx.broker!.port}`, id: claimed.id, secret: claimed.secret });
    await waitUntilOnline(t, lockId);
  });
  after(async () => {
    await device?.close();
  });

  const share = (operation: Record<string, unknown>) =>
    execute(t, manager, lockId, signed(manager, lockId, { type: 'ADD_USER', user: staff.userId, publicKey: staff.key.publicKeyBase64, ...operation } as never));
  const unlockAs = (who: Signer) => execute(t, who, lockId, signed(who, lockId, unlock));

  it('lets the member unlock inside their hours only, audits the refusal, and puts the hours in the config and in their view of the lock', async () => {
    clock.set(MONDAY_10);
    assert.equal((await share({ schedule: OFFICE_HOURS, end: MONDAY_10 + 40 * 86_400 })).status, 200);
    assert.equal((await unlockAs(staff)).status, 200, 'Monday 10:00: inside');

    clock.set(MONDAY_10 + 9 * 3600); // Monday 19:00
    const late = await unlockAs(staff);
    assert.equal(late.status, 403, late.text);
    assert.match(late.body.message, /outside the share's weekly hours/);
    const refusal = (await auditEntriesOf(t, lockId)).at(-1)!;
    assert.deepEqual([refusal.type, refusal.rejected, refusal.actor_user_id], ['DOOR_UNLOCK', 1, staff.userId]);
    assert.equal((await unlockAs(manager)).status, 200, 'the manager has no hours of their own');

    clock.set(MONDAY_10 + 5 * 86_400); // Saturday 10:00
    assert.equal((await unlockAs(staff)).status, 403);

    const users = (await lockConfig(t.service.ctx.db.kysely, lockId))!.users;
    assert.deepEqual(users.find((u) => u.userId === staff.userId)?.schedule, OFFICE_HOURS, "carried in the lock's config");
    assert.equal(users.find((u) => u.userId === manager.userId)?.schedule, undefined);
    const seen = await t.api.get(`/device/${lockId}`, { token: staff.authToken });
    assert.deepEqual(seen.body.schedule, OFFICE_HOURS, 'shown to the member');
    const listed = (await t.api.get('/device', { token: staff.authToken })).body as Array<{ id: string; schedule?: unknown }>;
    assert.deepEqual(listed.find((l) => l.id === lockId)?.schedule, OFFICE_HOURS);
    const members = (await t.api.get(`/device/${lockId}/users`, { token: manager.authToken })).body as Array<{ userId: string; schedule?: unknown }>;
    assert.deepEqual(members.find((m) => m.userId === staff.userId)?.schedule, OFFICE_HOURS, 'and to the admins');
    assert.equal((await t.api.get(`/device/${lockId}`, { token: manager.authToken })).body.schedule, undefined);
  });

  it('keeps the hours when a client that does not know them re-shares, and clears them with null', async () => {
    clock.set(MONDAY_10 + 9 * 3600); // Monday 19:00, outside the hours
    assert.equal((await share({ schedule: OFFICE_HOURS })).status, 200);
    assert.equal((await share({ role: 'USER' })).status, 200, 'an older client changes the window only');
    assert.equal((await unlockAs(staff)).status, 403, 'the hours stay');
    assert.equal((await share({ schedule: null })).status, 200);
    assert.equal((await unlockAs(staff)).status, 200, 'no hours: any time');
    assert.equal((await t.api.get(`/device/${lockId}`, { token: staff.authToken })).body.schedule, undefined);
  });

  it('takes hours in each share of a BATCH_ADD_USER as well', async () => {
    clock.set(MONDAY_10 + 9 * 3600); // Monday 19:00, outside the hours
    const [a, b] = [await certify(t, await createVerifiedUser(t)), await certify(t, await createVerifiedUser(t))];
    const users = [{ user: a.userId, publicKey: a.key.publicKeyBase64, schedule: OFFICE_HOURS }, { user: b.userId, publicKey: b.key.publicKeyBase64 }];
    const batch = await execute(t, manager, lockId, signed(manager, lockId, { type: 'BATCH_ADD_USER', users } as never));
    assert.equal(batch.status, 200, batch.text);
    assert.equal((await unlockAs(a)).status, 403, 'the share with hours');
    assert.equal((await unlockAs(b)).status, 200, 'the share without');
  });

  it('refuses malformed hours with 400 and a member changing their own hours with 403', async () => {
    for (const schedule of [[], [{ ...OFFICE_HOURS[0], timezone: 'Nowhere/Town' }], [{ ...OFFICE_HOURS[0], start: '8am' }], [{ ...OFFICE_HOURS[0], days: [] }]]) {
      const res = await share({ schedule });
      assert.equal(res.status, 400, `${JSON.stringify(schedule)}: ${res.text}`);
    }
    const self = await execute(t, manager, lockId, signed(manager, lockId, { type: 'ADD_USER', user: manager.userId, publicKey: manager.key.publicKeyBase64, role: 'ADMIN', schedule: OFFICE_HOURS } as never));
    assert.equal(self.status, 403, self.text);
  });
});
