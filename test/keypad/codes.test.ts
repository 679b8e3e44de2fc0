import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { capturingLogger } from '../helpers/mqtt.js';
import { auditEntriesOf, claimLock, createVerifiedUser, revokeLock, shareLock } from '../helpers/locks.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { connectTestLock } from '../helpers/test-lock.js';
import { eventually } from '../helpers/wait.js';
import { certify, type Signer } from '../execute/support.js';
import { addCode, assertNoDigits, codeOnLock, makeCode, postCode, removeCode } from './support.js';

describe('keypad codes: the API', () => {
  let t: TestService;
  let admin: Signer;
  const logs = capturingLogger();

  before(async () => {
    t = await startTestService({ CERT_CHECK: 'never' }, { logger: logs.logger });
    admin = await certify(t, await createVerifiedUser(t));
  });
  after(async () => t?.close());

  it('creates a generated code on a set of locks, shows the digits once, and never again', async () => {
    const [one, two] = [await claimLock(t, admin), await claimLock(t, admin)];
    const res = await postCode(t, admin, [one.id, two.id], { guest: 'Cleaner', maxUses: 3 }, { length: 7 });
    assert.equal(res.status, 201, res.text);
    const digits: string = res.body.digits;
    assert.match(digits, /^[0-9]{7}$/);
    const code = res.body.code;
    assert.deepEqual(code.holder, { kind: 'guest', userId: null, name: 'Cleaner' });
    assert.equal(code.length, 7);
    assert.equal(code.maxUses, 3);
    assert.deepEqual(code.locks.map((l: { lockId: string }) => l.lockId).sort(), [one.id, two.id].sort());
    assert.ok(code.locks.every((l: { status: string; sync: { state: string } }) => l.status === 'active' && l.sync.state === 'pending'));

    const read = await t.api.get(`/lock-codes/${code.id}`, { token: admin.authToken });
    assert.equal(read.status, 200);
    assertNoDigits(read.body, digits, 'GET /lock-codes/{id}');
    const list = await t.api.get(`/lock-codes?lockId=${one.id}`, { token: admin.authToken });
    assert.deepEqual(list.body.map((c: { id: string }) => c.id), [code.id]);
    assertNoDigits(list.body, digits, 'GET /lock-codes');

    const entries = await auditEntriesOf(t, one.id);
    const added = entries.filter((e) => e.type === 'CODE_ADDED');
    assert.equal(added.length, 1);
    assert.equal(added[0]!.actor_user_id, admin.userId);
    assertNoDigits(entries, digits, 'the audit trail');
    const stored = await t.service.ctx.db.kysely.selectFrom('keypad_codes').selectAll().where('id', '=', code.id).execute();
    assertNoDigits(stored, digits, 'the stored code');
    assertNoDigits(logs.lines, digits, 'the service log');
  });

  it('refuses two equal codes on one lock, allows them on different locks', async () => {
    const [one, two] = [await claimLock(t, admin), await claimLock(t, admin)];
    await makeCode(t, admin, [one.id], { guest: 'A' }, '482915');
    const again = await postCode(t, admin, [one.id], { guest: 'B' }, { digits: '482915' });
    assert.equal(again.status, 409, again.text);
    assertNoDigits(again.body, '482915', 'the refusal');
    const elsewhere = await postCode(t, admin, [two.id], { guest: 'B' }, { digits: '482915' });
    assert.equal(elsewhere.status, 201, elsewhere.text);
    assert.equal(elsewhere.body.digits, undefined, 'typed digits are not echoed');
    assert.equal((await postCode(t, admin, [two.id], { guest: 'C' }, { digits: '1234' })).status, 400, 'a run is too easy to guess');
  });

  it('is for active administrators only: a user is refused (403, audited), a stranger sees nothing (404)', async () => {
    const lock = await claimLock(t, admin);
    const user = await certify(t, await createVerifiedUser(t));
    const stranger = await certify(t, await createVerifiedUser(t));
    await shareLock(t, lock.id, admin, user.userId);
    const code = await makeCode(t, admin, [lock.id], { user: user.userId }, '739164');

    const byUser = await postCode(t, user, [lock.id], { guest: 'friend' });
    assert.equal(byUser.status, 403, byUser.text);
    assert.equal((await postCode(t, stranger, [lock.id], { guest: 'x' })).status, 404);
    const refusal = (await auditEntriesOf(t, lock.id)).find((e) => e.type === 'CODE_ADDED' && e.rejected === 1);
    assert.equal(refusal?.actor_user_id, user.userId);

    for (const caller of [user, stranger]) {
      const read = await t.api.get(`/lock-codes/${code.id}`, { token: caller.authToken });
      assert.equal(read.status, 404);
      assertNoDigits(read.body, code.digits, 'a read by a non-admin');
      const list = await t.api.get('/lock-codes', { token: caller.authToken });
      assert.deepEqual(list.body, []);
    }
    assert.equal((await t.api.get(`/lock-codes?lockId=${lock.id}`, { token: user.authToken })).status, 403);
    assert.equal((await t.api.get(`/lock-codes?lockId=${lock.id}`, { token: stranger.authToken })).status, 404);
    // The holder's own token for the code cannot revoke or change it either.
    const revoke = await t.api.post(`/lock-codes/${code.id}/revoke`, { token: user.authToken, body: { tokens: [removeCode(user, lock.id, code.id)] } });
    assert.equal(revoke.status, 403);
    assertNoDigits(logs.lines, code.digits, 'the service log');
  });

  it("refuses another member's token, a token replayed, and a set whose locks' terms differ", async () => {
    const [one, two] = [await claimLock(t, admin), await claimLock(t, admin)];
    const other = await certify(t, await createVerifiedUser(t));
    const id = randomUUID();
    const foreign = await t.api.post('/lock-codes', { token: admin.authToken, body: { tokens: [addCode(other, one.id, id, { guest: 'g' })] } });
    assert.equal(foreign.status, 403, 'a token whose iss is not the caller');
    const differ = await t.api.post('/lock-codes', { token: admin.authToken, body: { tokens: [addCode(admin, one.id, id, { guest: 'g' }), addCode(admin, two.id, id, { guest: 'g', maxUses: 1 })] } });
    assert.equal(differ.status, 400, differ.text);
    const token = addCode(admin, one.id, id, { guest: 'g' });
    assert.equal((await t.api.post('/lock-codes', { token: admin.authToken, body: { tokens: [token] } })).status, 201);
    const replay = await t.api.post('/lock-codes', { token: admin.authToken, body: { tokens: [token] } });
    assert.equal(replay.status, 409);
  });

  it('changes the terms only with an ADD_CODE for every lock of the code, and revokes lock by lock', async () => {
    const [one, two] = [await claimLock(t, admin), await claimLock(t, admin)];
    const code = await makeCode(t, admin, [one.id, two.id], { guest: 'Builder' });
    const end = Math.floor(Date.now() / 1000) + 3600;
    const partial = await t.api.put(`/lock-codes/${code.id}`, { token: admin.authToken, body: { tokens: [addCode(admin, one.id, code.id, { guest: 'Builder', end })] } });
    assert.equal(partial.status, 400, partial.text);
    const whole = await t.api.put(`/lock-codes/${code.id}`, { token: admin.authToken, body: { tokens: [one.id, two.id].map((l) => addCode(admin, l, code.id, { guest: 'Builder', end })) } });
    assert.equal(whole.status, 200, whole.text);
    assert.equal(whole.body.end, end);
    const holder = await t.api.put(`/lock-codes/${code.id}`, { token: admin.authToken, body: { tokens: [one.id, two.id].map((l) => addCode(admin, l, code.id, { guest: 'Someone else', end })) } });
    assert.equal(holder.status, 400);

    const revoked = await t.api.post(`/lock-codes/${code.id}/revoke`, { token: admin.authToken, body: { tokens: [removeCode(admin, one.id, code.id)] } });
    assert.equal(revoked.status, 200, revoked.text);
    assert.equal((await codeOnLock(t, admin, code.id, one.id))?.status, 'revoked');
    assert.equal((await codeOnLock(t, admin, code.id, two.id))?.status, 'active');
    // Revoked there, its digits are free on that lock again.
    assert.equal((await postCode(t, admin, [one.id], { guest: 'New' }, { digits: code.digits })).status, 201);
    const types = (await auditEntriesOf(t, one.id)).filter((e) => e.type.startsWith('CODE_')).map((e) => e.type);
    assert.deepEqual(types, ['CODE_ADDED', 'CODE_CHANGED', 'CODE_REMOVED', 'CODE_ADDED']);
  });

  it("ends a member's code when their access ends, for good, without anyone touching the code", async () => {
    const [one, two] = [await claimLock(t, admin), await claimLock(t, admin)];
    const member = await createVerifiedUser(t);
    await shareLock(t, one.id, admin, member.userId);
    await shareLock(t, two.id, admin, member.userId);
    const code = await makeCode(t, admin, [one.id, two.id], { user: member.userId });
    assert.equal((await codeOnLock(t, admin, code.id, one.id))?.status, 'active');

    await revokeLock(t, one.id, admin, [member.userId]);
    assert.equal((await codeOnLock(t, admin, code.id, one.id))?.status, 'holder_access_ended');
    assert.equal((await codeOnLock(t, admin, code.id, two.id))?.status, 'active');
    await shareLock(t, one.id, admin, member.userId);
    assert.equal((await codeOnLock(t, admin, code.id, one.id))?.status, 'holder_access_ended', 'shared again: the old code stays ended');

    const gone = await t.api.delete('/account', { token: member.authToken });
    assert.ok(gone.status === 200 || gone.status === 204, gone.text);
    assert.equal((await codeOnLock(t, admin, code.id, two.id))?.status, 'holder_access_ended');

    const stranger = await createVerifiedUser(t);
    assert.equal((await postCode(t, admin, [one.id], { user: stranger.userId })).status, 404, 'a holder who is no member');
  });

  it('takes only codes of a length every lock of the set takes, as each lock said (device protocol 1.5 codeDigits)', async () => {
    const [narrow, plain] = [await claimLock(t, admin), await claimLock(t, admin)];
    const device = await connectTestLock({ url: `mqtt://127.0.0.1:${t.service.ctx.broker!.port}`, id: narrow.id, secret: narrow.secret, device: { kind: 'matter', capabilities: ['keypad'], codeDigits: { min: 5, max: 7 } } });
    try {
      await eventually(async () => (await t.service.ctx.db.kysely.selectFrom('locks').select('code_digits_max').where('id', '=', narrow.id).executeTakeFirstOrThrow()).code_digits_max === 7 || undefined, 'the lock said what it takes');
      const short = await postCode(t, admin, [narrow.id, plain.id], { guest: 'Short' }, { digits: '4829' });
      assert.equal(short.status, 400, short.text);
      assert.match(short.body.message, new RegExp(`lock ${narrow.id} takes codes of 5 to 7 digits`));
      assertNoDigits(short.body, '4829', 'the refusal');
      assert.equal((await postCode(t, admin, [narrow.id], { guest: 'Long' }, { length: 8 })).status, 400);
      assert.equal((await postCode(t, admin, [plain.id], { guest: 'Fits' }, { digits: '4829' })).status, 201, 'a lock that said nothing takes 4 to 8');
      const fits = await postCode(t, admin, [narrow.id, plain.id], { guest: 'Fits' }, { digits: '48291' });
      assert.equal(fits.status, 201, fits.text);
      // A code of 4 digits cannot be put on the narrow lock afterwards either.
      const four = await makeCode(t, admin, [plain.id], { guest: 'Four' }, '7391');
      const onto = await t.api.put(`/lock-codes/${four.id}`, { token: admin.authToken, body: { tokens: [plain.id, narrow.id].map((l) => addCode(admin, l, four.id, { guest: 'Four' })) } });
      assert.equal(onto.status, 400, onto.text);
    } finally {
      await device.close();
    }
  });
});
