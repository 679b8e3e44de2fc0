import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { AppContext } from '../../src/context.js';
import type { LockState } from '../../src/device-protocol/payloads.js';
import { recordState } from '../../src/lock-link/reports.js';
import { provisionLock } from '../helpers/locks.js';
import { useService } from '../helpers/service.js';
import { transactionsDuring } from './helpers.js';

/**
 * A state report's decisions are made in two places: src/locks/command-life.ts's reportLocked
 * (TypeScript: SQLite, and PostgreSQL's transaction) and migration 0270's report_locked_decision (PL/pgSQL:
 * PostgreSQL's one statement). This table runs on both engines, so a decision changed in one place
 * and not the other fails here: each row is a lock row and a report, and what recordState answers,
 * the row after it and the audit entries it wrote. `tx` is PostgreSQL's: 0 where report_locked_decision
 * records the report alone, 1 where it answers 'fallback' and the transaction records it.
 * Not listed: a decommissioned lock with reports spread, where the transaction claims the report's
 * time and report_locked_decision does not (the lock is never heard again).
 */

const REPORT_TS = 10_000;

interface Row {
  locked: 0 | 1 | null;
  /** The pending-command marker: the state it asks for, and whether it is live / late. */
  marker?: { target: 0 | 1; live: boolean; late: boolean };
  decommissioned?: boolean;
  /** The newest report time recorded (reports spread). */
  reportTs?: number;
  battery?: number;
  doorOpen?: 0 | 1;
  /** '' the lock reported none; null it never said. */
  lockdown?: string | null;
}

interface Case {
  name: string;
  row: Row;
  report: Omit<LockState, 'ts' | 'configVersion'> & { operation?: string };
  spread?: boolean;
  expect: {
    result: string[];
    locked: 0 | 1 | null;
    /** The marker still on the row, and its pending_late. */
    marker: boolean;
    late: 0 | 1 | null;
    /** Audit entries: type and who (`user`: the marker's, `nobody`: unattributed). */
    audits: string[];
    reportTs?: number | null;
    tx: 0 | 1;
  };
}

const equalBeside = { battery: 50, doorOpen: false, jammed: false, tamper: false, lockdown: null };
const none = { marker: false, late: null } as const;

const cases: Case[] = [
  { name: 'a relock nobody asked for', row: { locked: 0 }, report: { locked: true },
    expect: { result: ['DOOR_LOCK'], locked: 1, ...none, audits: ['DOOR_LOCK:nobody'], tx: 0 } },
  { name: 'the state the row holds', row: { locked: 1 }, report: { locked: true, ...equalBeside },
    expect: { result: [], locked: 1, ...none, audits: [], tx: 0 } },
  { name: 'a decommissioned lock', row: { locked: 0, decommissioned: true }, report: { locked: true },
    expect: { result: [], locked: 0, ...none, audits: [], tx: 0 } },
  { name: 'a first report (locked unknown) whose health, door and lockdown the row holds', row: { locked: null }, report: { locked: true, ...equalBeside },
    expect: { result: [], locked: 1, ...none, audits: [], tx: 0 } },
  { name: 'equal lockdown (in force, another case), jammed and tamper', row: { locked: 0, lockdown: 'ld-7' }, report: { locked: true, jammed: false, tamper: false, lockdown: 'LD-7' },
    expect: { result: ['DOOR_LOCK'], locked: 1, ...none, audits: ['DOOR_LOCK:nobody'], tx: 0 } },
  { name: 'an operation the lock reports', row: { locked: 1 }, report: { locked: false, operation: randomUUID() },
    expect: { result: [], locked: 0, ...none, audits: [], tx: 0 } },
  { name: 'a live marker for this state', row: { locked: 1, marker: { target: 0, live: true, late: false } }, report: { locked: false },
    expect: { result: [], locked: 0, marker: true, late: 0, audits: [], tx: 0 } },
  { name: 'a live marker for the other state', row: { locked: 1, marker: { target: 1, live: true, late: false } }, report: { locked: false },
    expect: { result: ['DOOR_UNLOCK'], locked: 0, marker: true, late: 0, audits: ['DOOR_UNLOCK:nobody'], tx: 0 } },
  { name: 'an expired marker for this state', row: { locked: 1, marker: { target: 0, live: false, late: false } }, report: { locked: false },
    expect: { result: ['DOOR_UNLOCK'], locked: 0, marker: true, late: 0, audits: ['DOOR_UNLOCK:nobody'], tx: 0 } },
  { name: 'an expired late marker for this state', row: { locked: 1, marker: { target: 0, live: false, late: true } }, report: { locked: false },
    expect: { result: ['DOOR_UNLOCK'], locked: 0, marker: true, late: 1, audits: ['DOOR_UNLOCK:nobody'], tx: 0 } },
  { name: 'a late marker for the other state', row: { locked: 1, marker: { target: 1, live: true, late: true } }, report: { locked: false },
    expect: { result: ['DOOR_UNLOCK'], locked: 0, marker: true, late: 1, audits: ['DOOR_UNLOCK:nobody'], tx: 0 } },
  { name: 'a late marker for this state: the user\'s', row: { locked: 1, marker: { target: 0, live: true, late: true } }, report: { locked: false },
    expect: { result: ['DOOR_UNLOCK'], locked: 0, marker: false, late: null, audits: ['DOOR_UNLOCK:user'], tx: 1 } },
  { name: 'a late marker for this state, the move an operation', row: { locked: 1, marker: { target: 0, live: true, late: true } }, report: { locked: false, operation: randomUUID() },
    expect: { result: [], locked: 0, marker: true, late: 1, audits: [], tx: 1 } },
  { name: 'a late marker for the state the row holds already', row: { locked: 0, marker: { target: 0, live: true, late: true } }, report: { locked: false },
    expect: { result: [], locked: 0, marker: true, late: 1, audits: [], tx: 0 } },
  { name: 'a battery the row does not hold', row: { locked: 0 }, report: { locked: true, battery: 60 },
    expect: { result: ['DOOR_LOCK'], locked: 1, ...none, audits: ['DOOR_LOCK:nobody'], tx: 1 } },
  { name: 'a door the row does not hold, the bolt as it holds', row: { locked: 1 }, report: { locked: true, doorOpen: true },
    expect: { result: ['DOOR_OPEN'], locked: 1, ...none, audits: ['DOOR_OPEN:nobody'], tx: 1 } },
  { name: 'a lock\'s first report of no lockdown', row: { locked: 1, lockdown: null }, report: { locked: true, lockdown: null },
    expect: { result: [], locked: 1, ...none, audits: [], tx: 1 } },
  { name: 'spread: the first report time', spread: true, row: { locked: 0 }, report: { locked: true, ...equalBeside },
    expect: { result: ['DOOR_LOCK'], locked: 1, ...none, audits: ['DOOR_LOCK:nobody'], reportTs: REPORT_TS, tx: 0 } },
  { name: 'spread: a later report recorded', spread: true, row: { locked: 0, reportTs: REPORT_TS + 30 }, report: { locked: true },
    expect: { result: [], locked: 0, ...none, audits: [], reportTs: REPORT_TS + 30, tx: 0 } },
  { name: 'spread: a report 60 s later recorded (the window\'s edge)', spread: true, row: { locked: 0, reportTs: REPORT_TS + 60 }, report: { locked: true },
    expect: { result: [], locked: 0, ...none, audits: [], reportTs: REPORT_TS + 60, tx: 0 } },
  { name: 'spread: an earlier report recorded', spread: true, row: { locked: 0, reportTs: REPORT_TS - 5 }, report: { locked: true },
    expect: { result: ['DOOR_LOCK'], locked: 1, ...none, audits: ['DOOR_LOCK:nobody'], reportTs: REPORT_TS, tx: 0 } },
  { name: 'spread: the lock\'s clock set back by more than 60 s', spread: true, row: { locked: 0, reportTs: REPORT_TS + 61 }, report: { locked: true },
    expect: { result: ['DOOR_LOCK'], locked: 1, ...none, audits: ['DOOR_LOCK:nobody'], reportTs: REPORT_TS, tx: 0 } },
  { name: 'spread: the state the row holds, its time claimed', spread: true, row: { locked: 1, reportTs: REPORT_TS - 5 }, report: { locked: true },
    expect: { result: [], locked: 1, ...none, audits: [], reportTs: REPORT_TS, tx: 0 } },
  { name: 'spread: a door the row does not hold (its time claimed by the transaction)', spread: true, row: { locked: 1, reportTs: REPORT_TS - 5 }, report: { locked: false, doorOpen: true },
    expect: { result: ['DOOR_UNLOCK', 'DOOR_OPEN'], locked: 0, ...none, audits: ['DOOR_UNLOCK:nobody', 'DOOR_OPEN:nobody'], reportTs: REPORT_TS, tx: 1 } },
];

describe('a state report\'s decisions, the same on both engines (reportLocked and migration 0270\'s report_locked_decision)', () => {
  const t = useService({ withUser: true });

  /** The case's lock row, and the context its report is recorded on. */
  async function arrange(c: Case): Promise<{ id: string; on: AppContext }> {
    const ctx = t.service.ctx;
    const on = c.spread ? ({ ...ctx, config: { ...ctx.config, mqtt: { ...ctx.config.mqtt, kind: 'external' }, mqttSharedSubscriptions: true } } as AppContext) : ctx;
    const { id } = await provisionLock(t);
    const now = ctx.now();
    const { marker } = c.row;
    await ctx.db.kysely.updateTable('locks').set({
      locked: c.row.locked, battery: c.row.battery ?? 50, door_open: c.row.doorOpen ?? 0, jammed: 0, tamper: 0,
      reported_lockdown: c.row.lockdown === undefined ? '' : c.row.lockdown, report_ts: c.row.reportTs ?? null,
      decommissioned_at: c.row.decommissioned ? now - 1 : null,
      ...(marker === undefined ? {} : {
        pending_actor_user_id: t.user.userId, pending_target_locked: marker.target, pending_command_id: randomUUID(),
        pending_until: marker.live ? now + 100 : now - 10, pending_late: marker.late ? 1 : 0,
      }),
    }).where('id', '=', id).execute();
    return { id, on };
  }

  const record = (on: AppContext, id: string, c: Case) => recordState(on, id, { ...c.report, ts: REPORT_TS, configVersion: 0 } as LockState);

  /** Asserts what the report answered and what the lock row and its audit entries hold after it. */
  async function assertOutcome(c: Case, id: string, result: unknown): Promise<void> {
    const { tx: _tx, ...expected } = c.expect;
    const ctx = t.service.ctx;
    const row = await ctx.db.kysely.selectFrom('locks').select(['locked', 'pending_command_id', 'pending_late', 'report_ts']).where('id', '=', id).executeTakeFirstOrThrow();
    const audits = await ctx.db.kysely.selectFrom('audit_entries').select(['type', 'actor_user_id']).where('lock_id', '=', id).orderBy('seq').execute();
    assert.deepEqual({
      result,
      locked: row.locked,
      marker: row.pending_command_id !== null,
      late: row.pending_late,
      audits: audits.map((entry) => `${entry.type}:${entry.actor_user_id === null ? 'nobody' : entry.actor_user_id === t.user.userId ? 'user' : entry.actor_user_id}`),
      ...(c.expect.reportTs === undefined ? {} : { reportTs: row.report_ts === null ? null : Number(row.report_ts) }),
    }, expected, c.name);
  }

  for (const c of cases) {
    it(c.name, async () => {
      const ctx = t.service.ctx;
      const { id, on } = await arrange(c);
      const { result, transactions } = await transactionsDuring(on, (counted) => record(counted, id, c));
      await assertOutcome(c, id, result);
      const { tx } = c.expect;
      if (ctx.db.dialect === 'postgres') assert.equal(transactions, tx, tx === 0 ? 'one statement (lock_writes), no transaction' : 'report_locked_decision answers fallback: the transaction');
    });
  }

  // PostgreSQL: reports of one moment share a batch of migration 0270's lock_writes (src/locks/lock-writes.ts).
  it('decides every case alike when all the reports are recorded at the same moment (one batch on PostgreSQL)', async () => {
    const arranged = [];
    for (const c of cases) arranged.push({ c, ...(await arrange(c)) });
    const results = await Promise.all(arranged.map(({ c, id, on }) => record(on, id, c)));
    for (const [i, { c, id }] of arranged.entries()) await assertOutcome(c, id, results[i]);
  });
});
