import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { verifyAuditTrail } from '../../src/audit/verify.js';
import type { AppContext } from '../../src/context.js';
import { inTransaction } from '../../src/db/transaction.js';
import type { LockState } from '../../src/device-protocol/payloads.js';
import { recordState } from '../../src/lock-link/reports.js';
import { beginCommand, markCommandLate, pendingCommand, reportLockedAlone, type PendingCommand } from '../../src/locks/command-life.js';
import { claimLock } from '../helpers/locks.js';
import { useService } from '../helpers/service.js';
import { transactionsDuring as transactionsOf } from './helpers.js';

/**
 * A state report as the lock link records it (recordState), on both engines: the same audit
 * entries and lock row whichever path records it. On PostgreSQL a report that changes `locked`
 * alone is one statement in autocommit (migration 0270's lock_writes, issue 33 point 3, fourth and fifth
 * steps); what else it changes (health, door, lockdown) or a late command's marker take the
 * report's transaction as before.
 */
describe('a state report recorded: one statement on PostgreSQL when it moves the bolt alone', () => {
  const t = useService({ withUser: true });
  const ctx = () => t.service.ctx;
  let ts = 1_000;
  const report = (lockId: string, state: Omit<LockState, 'ts'>, on: AppContext = ctx()) => recordState(on, lockId, { ...state, ts: (ts += 1) } as LockState);

  /** Transactions a report opens, recorded on a context that counts them. */
  const transactionsOfReport = (lockId: string, state: Omit<LockState, 'ts'>) => transactionsOf(ctx(), (counted) => report(lockId, state, counted));

  const auditOf = async (lockId: string) => {
    const rows = await ctx().db.kysely.selectFrom('audit_entries').select(['type', 'actor_user_id', 'details']).where('lock_id', '=', lockId).where('type', 'not in', ['OWNER_ASSIGNED', 'DEVICE_CONNECTED']).orderBy('seq').execute();
    return rows.map((row) => `${row.type}:${row.actor_user_id === null ? 'nobody' : row.actor_user_id === t.user.userId ? 'user' : row.actor_user_id}${row.details === null ? '' : ` ${typeof row.details === 'string' ? row.details : JSON.stringify(row.details)}`}`);
  };
  const lockRow = (lockId: string) => ctx().db.kysely.selectFrom('locks').select(['locked', 'battery', 'door_open', 'pending_command_id', 'report_ts']).where('id', '=', lockId).executeTakeFirstOrThrow();
  const begin = (command: PendingCommand) => inTransaction(ctx().db, ctx().logger, (uow) => beginCommand(uow, command));
  const unlockBy = (lockId: string) => pendingCommand(lockId, t.user.userId, false, ctx().now(), ctx().config.lockReplyTimeoutMs, randomUUID());

  /** A claimed lock whose first report (stored, not audited) said it is locked, its battery at 80 and its door closed. */
  async function knownLock(): Promise<string> {
    const { id } = await claimLock(t, t.user);
    assert.deepEqual(await report(id, { locked: true, battery: 80, doorOpen: false }), []);
    assert.deepEqual(await auditOf(id), [], 'the first report of a lock is stored, not audited');
    return id;
  }

  it('audits a relock nobody asked for without a user, once; on PostgreSQL with no transaction of its own', async () => {
    const id = await knownLock();
    assert.deepEqual(await report(id, { locked: false, battery: 80 }), ['DOOR_UNLOCK']);
    const relock = await transactionsOfReport(id, { locked: true, battery: 80, doorOpen: false });
    assert.deepEqual(relock.result, ['DOOR_LOCK']);
    assert.equal(relock.transactions, ctx().db.dialect === 'postgres' ? 0 : 1, 'PostgreSQL: one statement (lock_writes); SQLite: its transaction');
    assert.deepEqual(await report(id, { locked: true, battery: 80 }), [], 'repeated: nothing more');
    assert.equal((await lockRow(id)).locked, 1);
    assert.deepEqual(await auditOf(id), ['DOOR_UNLOCK:nobody', 'DOOR_LOCK:nobody']);
    assert.equal((await verifyAuditTrail(ctx().db.kysely)).ok, true, 'the entries are on the chain and the tree');
  });

  it('stores, without auditing, the state a live command asked for, and what the lock reports as its operation\'s', async () => {
    const id = await knownLock();
    await begin(unlockBy(id));
    assert.deepEqual(await report(id, { locked: false }), [], 'its confirmation audits it');
    assert.equal((await lockRow(id)).locked, 0);
    assert.deepEqual(await report(id, { locked: true, operation: randomUUID() } as Omit<LockState, 'ts'>), [], 'the operation report audits it');
    assert.equal((await lockRow(id)).locked, 1);
    assert.deepEqual(await auditOf(id), []);
  });

  it('audits a late command\'s state report as the user\'s, with its command id (the transaction, on both engines)', async () => {
    const id = await knownLock();
    const command = unlockBy(id);
    await begin(command);
    await markCommandLate(ctx(), command);
    const late = await transactionsOfReport(id, { locked: false });
    assert.deepEqual(late.result, ['DOOR_UNLOCK']);
    assert.equal(late.transactions, 1);
    assert.equal((await lockRow(id)).pending_command_id, null);
    assert.deepEqual(await auditOf(id), [`DOOR_UNLOCK:user {"commandId":"${command.commandId}","late":true}`]);
  });

  it('stores the health and the door it reports with the bolt, derives the alarms and audits the door (the transaction, on both engines)', async () => {
    const id = await knownLock();
    const moved = await transactionsOfReport(id, { locked: false, battery: 4, doorOpen: true });
    assert.deepEqual(moved.result, ['DOOR_UNLOCK', 'DOOR_OPEN']);
    assert.equal(moved.transactions, 1);
    assert.deepEqual({ ...(await lockRow(id)), report_ts: null }, { locked: 0, battery: 4, door_open: 1, pending_command_id: null, report_ts: null });
    const alarms = await ctx().db.kysely.selectFrom('lock_alarms').select('kind').where('lock_id', '=', id).where('cleared_at', 'is', null).orderBy('kind').execute();
    assert.deepEqual(alarms.map((alarm) => alarm.kind), ['battery_critical', 'battery_low']);
    assert.deepEqual(await auditOf(id), ['DOOR_UNLOCK:nobody', 'ALARM_RAISED:nobody {"alarm":"battery_low"}', 'ALARM_RAISED:nobody {"alarm":"battery_critical"}', 'DOOR_OPEN:nobody']);
  });

  it('with reports spread over instances, records a report older than one recorded already nowhere, and a newer one', async () => {
    const id = await knownLock();
    const base = ctx();
    const spread = { ...base, config: { ...base.config, mqtt: { ...base.config.mqtt, kind: 'external' }, mqttSharedSubscriptions: true } } as AppContext;
    const newest = (ts += 10);
    assert.deepEqual(await recordState(spread, id, { locked: false, ts: newest } as LockState), ['DOOR_UNLOCK']);
    assert.deepEqual(await recordState(spread, id, { locked: true, ts: newest - 5 } as LockState), [], 'overtaken: the unlock is newer');
    assert.equal((await lockRow(id)).locked, 0);
    assert.deepEqual(await recordState(spread, id, { locked: true, ts: newest + 1 } as LockState), ['DOOR_LOCK']);
    assert.equal(Number((await lockRow(id)).report_ts), newest + 1);
    assert.deepEqual(await auditOf(id), ['DOOR_UNLOCK:nobody', 'DOOR_LOCK:nobody']);
    if (base.db.dialect === 'postgres') {
      // A report the transaction must record (its door moved) is left to it whole: its time unclaimed,
      // claimed by the transaction with the changes it applies (migration 0250's comment says why).
      assert.equal(await reportLockedAlone(spread, id, false, { doorOpen: true }, false, newest + 2), undefined);
      assert.deepEqual(await lockRow(id), { locked: 1, battery: 80, door_open: 0, pending_command_id: null, report_ts: newest + 1 });
    }
  });
});
