import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inTransaction } from '../../src/db/transaction.js';
import { randomUUID } from 'node:crypto';
import { abandonCommand, beginCommand, confirmCommand, confirmLateCommand, markCommandLate, pendingCommand, reportLocked, type PendingCommand } from '../../src/locks/command-life.js';
import { recordState } from '../../src/lock-link/reports.js';
import { sql } from 'kysely';
import { claimLock } from '../helpers/locks.js';
import { useService } from '../helpers/service.js';
import { UNKNOWN_ID } from './support.js';

/**
 * A lock/unlock command's life on its lock row (src/locks/command-life.ts), on the real database:
 * which state report is the command's own (audited by its confirmation, with the user) and which
 * is audited without a user.
 */
describe('a command\'s life: begin, confirm, abandon, late report', () => {
  const t = useService({ withUser: true });
  const ctx = () => t.service.ctx;

  const report = (lockId: string, locked: boolean, now = ctx().now()) => inTransaction(ctx().db, ctx().logger, (uow) => reportLocked(ctx(), uow, lockId, locked, now));
  const begin = (command: PendingCommand) => inTransaction(ctx().db, ctx().logger, (uow) => beginCommand(uow, command));
  const unlockBy = (lockId: string, userId: string, now = ctx().now()) => pendingCommand(lockId, userId, false, now, ctx().config.lockReplyTimeoutMs, randomUUID());
  const auditOf = async (lockId: string) => {
    const rows = await ctx().db.kysely.selectFrom('audit_entries').select(['type', 'actor_user_id']).where('lock_id', '=', lockId).where('type', 'in', ['DOOR_LOCK', 'DOOR_UNLOCK']).orderBy('seq').execute();
    return rows.map((row) => `${row.type}:${row.actor_user_id ?? 'nobody'}`);
  };
  const row = (lockId: string) => ctx().db.kysely.selectFrom('locks').select(['locked', 'pending_actor_user_id']).where('id', '=', lockId).executeTakeFirstOrThrow();

  /** A claimed lock whose state is known: locked. */
  async function lockedLock(): Promise<string> {
    const { id } = await claimLock(t, t.user);
    assert.equal(await report(id, true), null, 'the first report of a lock is stored, not audited');
    assert.equal((await row(id)).locked, 1);
    return id;
  }

  it('stores a report of an unknown lock nowhere', async () => {
    assert.equal(await report(UNKNOWN_ID, false), undefined);
  });

  it('audits a change nobody asked for without a user, and a repeated report not again', async () => {
    const id = await lockedLock();
    assert.equal(await report(id, false), 'DOOR_UNLOCK');
    assert.equal(await report(id, false), null);
    assert.deepEqual(await auditOf(id), ['DOOR_UNLOCK:nobody']);
  });

  it('leaves the report the command asked for to its confirmation, which audits it once with the user', async () => {
    const id = await lockedLock();
    const command = unlockBy(id, t.user.userId);
    await begin(command);
    assert.equal((await row(id)).pending_actor_user_id, t.user.userId);
    assert.equal(await report(id, false), null, 'the report came before the reply');
    await confirmCommand(ctx(), command, { lockId: id, type: 'DOOR_UNLOCK', actorUserId: t.user.userId });
    assert.equal((await row(id)).locked, 0);
    assert.deepEqual(await auditOf(id), [`DOOR_UNLOCK:${t.user.userId}`]);
  });

  it('audits a report of the other state while a command is pending', async () => {
    const id = await lockedLock();
    await begin(unlockBy(id, t.user.userId));
    await report(id, false);
    assert.equal(await report(id, true), 'DOOR_LOCK');
    assert.deepEqual(await auditOf(id), ['DOOR_LOCK:nobody']);
  });

  it('audits without a user what the lock does after its command was abandoned (the late report)', async () => {
    const id = await lockedLock();
    const command = unlockBy(id, t.user.userId);
    await begin(command);
    await abandonCommand(ctx(), command);
    assert.equal((await row(id)).pending_actor_user_id, null);
    assert.equal(await report(id, false), 'DOOR_UNLOCK');
    assert.deepEqual(await auditOf(id), ['DOOR_UNLOCK:nobody']);
  });

  it('abandons only its own marker, not that of the same user\'s next command', async () => {
    const id = await lockedLock();
    const now = ctx().now();
    const first = unlockBy(id, t.user.userId, now);
    const next = unlockBy(id, t.user.userId, now + 1);
    await begin(first);
    await begin(next);
    await abandonCommand(ctx(), first);
    assert.equal((await row(id)).pending_actor_user_id, t.user.userId);
    assert.equal(await report(id, false), null, 'the next command still waits for this report');
  });

  it('audits without a user a report that comes after the marker has run out', async () => {
    const id = await lockedLock();
    const command = unlockBy(id, t.user.userId);
    await begin(command);
    assert.equal(await report(id, false, command.until + 0.001), 'DOOR_UNLOCK');
    assert.deepEqual(await auditOf(id), ['DOOR_UNLOCK:nobody']);
  });

  const lateOf = async (lockId: string) => {
    const rows = await ctx().db.kysely.selectFrom('audit_entries').select(['type', 'actor_user_id', 'details']).where('lock_id', '=', lockId).where('type', '=', 'DOOR_UNLOCK').orderBy('seq').execute();
    return rows.map((r) => ({ actor: r.actor_user_id, details: typeof r.details === 'string' ? JSON.parse(r.details) as unknown : r.details }));
  };

  it('audits a late command\'s state report as the user\'s, with the command id, once', async () => {
    const id = await lockedLock();
    const command = unlockBy(id, t.user.userId);
    await begin(command);
    await markCommandLate(ctx(), command);
    assert.equal(await report(id, false, command.until + 10), 'DOOR_UNLOCK', 'a late marker outlives the reply timeout');
    assert.deepEqual(await lateOf(id), [{ actor: t.user.userId, details: { commandId: command.commandId, late: true } }]);
    assert.equal(await confirmLateCommand(ctx(), id, command.commandId), null, 'the reply that follows audits nothing more');
    assert.equal((await row(id)).pending_actor_user_id, null);
  });

  it('audits a late command\'s reply as the user\'s; the state report then changes nothing', async () => {
    const id = await lockedLock();
    const command = unlockBy(id, t.user.userId);
    await begin(command);
    assert.equal(await confirmLateCommand(ctx(), id, command.commandId), null, 'not late yet: its own request confirms it');
    await markCommandLate(ctx(), command);
    assert.equal(await confirmLateCommand(ctx(), id, randomUUID()), null, 'another command id');
    assert.equal(await confirmLateCommand(ctx(), id, command.commandId), 'DOOR_UNLOCK');
    assert.equal((await row(id)).locked, 0);
    assert.equal(await report(id, false), null);
    assert.deepEqual(await lateOf(id), [{ actor: t.user.userId, details: { commandId: command.commandId, late: true } }]);
  });

  it('takes a reply that overtook the 504\'s bookkeeping when the command timed out on this instance', async () => {
    const id = await lockedLock();
    const command = unlockBy(id, t.user.userId);
    await begin(command);
    assert.equal(await confirmLateCommand(ctx(), id, command.commandId, true), 'DOOR_UNLOCK');
    await markCommandLate(ctx(), command);
    assert.equal((await row(id)).pending_actor_user_id, null, 'marking late after the fact finds no marker');
    assert.deepEqual(await lateOf(id), [{ actor: t.user.userId, details: { commandId: command.commandId, late: true } }]);
  });

  it('writes nothing for a state report of what the row already holds (issue 33 point 3), and derives alarms when the health changes', async () => {
    const id = await lockedLock();
    // Rows written so far: the lock row's version on PostgreSQL, the connection's changes on SQLite.
    const written = async () => ctx().db.dialect === 'postgres'
      ? String((await sql<{ v: string }>`select xmin::text as v from locks where id = ${id}`.execute(ctx().db.kysely)).rows[0]!.v)
      : String((await sql<{ v: number }>`select total_changes() as v`.execute(ctx().db.kysely)).rows[0]!.v);
    await recordState(ctx(), id, { locked: true, ts: 1, battery: 80, jammed: false });
    const before = await written();
    assert.deepEqual(await recordState(ctx(), id, { locked: true, ts: 2, battery: 80, jammed: false }), []);
    assert.equal(await written(), before, 'no write: neither locked nor the health changed');
    await recordState(ctx(), id, { locked: true, ts: 3, battery: 4 });
    assert.notEqual(await written(), before);
    const open = await ctx().db.kysely.selectFrom('lock_alarms').select('kind').where('lock_id', '=', id).where('cleared_at', 'is', null).orderBy('kind').execute();
    assert.deepEqual(open.map((a) => a.kind), ['battery_critical', 'battery_low']);
    await recordState(ctx(), id, { locked: true, ts: 4, battery: 4 });
    await recordState(ctx(), id, { locked: true, ts: 5, battery: 90 });
    const still = await ctx().db.kysely.selectFrom('lock_alarms').select('kind').where('lock_id', '=', id).where('cleared_at', 'is', null).execute();
    assert.deepEqual(still, [], 'cleared once the battery is back');
  });
});
