import { sql } from 'kysely';
import type { AppendedRow, AppendSlots } from '../audit/record.js';
import type { Database } from '../db/database.js';
import { isRefusedStatement } from '../db/errors.js';
import { jsonParameter } from '../db/json-parameter.js';
import { StatementBatch } from '../db/statement-batch.js';
import type { Flag } from '../accounts/tables.js';

/**
 * PostgreSQL: the unlock path's writes (a command's beginning: its replay key and marker; its
 * confirmation: the stored state and entry; a state report's decisions and entry) made by
 * migration 0270's lock_writes, in batches: the calls of one turn of the event loop, and those
 * made while a batch is in the database, share one statement and one commit
 * (src/db/statement-batch.ts; docs/decisions.md, "Group commit by statement on PostgreSQL";
 * docs/scaling.md measures it).
 */

/** A state report, as report_locked_decision takes it (migration 0270), and the entry appended if it audits. */
export interface ReportWrite {
  kind: 'report'; entry: AppendSlots; locked: Flag; now: number; reportTs: number | null; overtakenWithin: number; battery: number | null;
  jammed: Flag | null; tamper: Flag | null; doorOpen: Flag | null; lockdown: string | null; byOperation: boolean;
}

/** A command's confirmation: `locked` stored at `storedAt` where the row held something else, and its entry (the lock's). */
export interface ConfirmWrite { kind: 'confirm'; entry: AppendSlots; locked: Flag; storedAt: number }

/** A command's beginning: its token's replay key used (kept until `keepUntil`) and the row's marker (`locked`: its target). */
export interface BeginWrite {
  kind: 'begin'; lockId: string; replayKey: string; usedAt: number; keepUntil: number; actorUserId: string; locked: Flag; until: number; commandId: string;
}

export type LockWrite = ReportWrite | ConfirmWrite | BeginWrite;

/** report_locked's outcomes ('append' is answered as 'audited'); 'confirmed'; 'begun', or 'reused' for a used replay key. */
export type LockWriteRow = AppendedRow & { outcome: 'overtaken' | 'unknown' | 'fallback' | 'unchanged' | 'stored' | 'audited' | 'confirmed' | 'begun' | 'reused' };

/** The item as the migration's lock_write_item type names its fields. */
function itemOf(write: LockWrite, ord: number): Record<string, unknown> {
  switch (write.kind) {
    case 'begin':
      return {
        ord, kind: write.kind, lock_id: write.lockId, locked: write.locked, replay_key: write.replayKey, used_at: write.usedAt,
        keep_until: write.keepUntil, actor_user_id: write.actorUserId, pending_until: write.until, command_id: write.commandId,
      };
    case 'confirm':
      return { ord, kind: write.kind, lock_id: write.entry.lockId, locked: write.locked, stored_at: write.storedAt, ...entryOf(write.entry) };
    case 'report':
      return {
        ord, kind: write.kind, lock_id: write.entry.lockId, locked: write.locked, now: write.now, report_ts: write.reportTs,
        overtaken_within: write.overtakenWithin, battery: write.battery, jammed: write.jammed, tamper: write.tamper, door_open: write.doorOpen,
        lockdown: write.lockdown, by_operation: write.byOperation, ...entryOf(write.entry),
      };
  }
}

function entryOf(entry: AppendSlots): Record<string, unknown> {
  return {
    entry_id: entry.id, actor_id: entry.actorId, subject_id: entry.subjectId, entry_ts: entry.timestamp, entry_type: entry.type,
    actor_ip: entry.actorIp, user_agent_type: entry.userAgentType, user_agent_version: entry.userAgentVersion, rejected: entry.rejected,
    message: entry.message, details: entry.details, hash_version: entry.version, preimage: entry.preimage, outbox: entry.outbox,
  };
}

async function sendLockWrites(database: Database, writes: LockWrite[]): Promise<LockWriteRow[]> {
  const items = jsonParameter(writes.map((write, index) => itemOf(write, index + 1)));
  const { rows } = await sql<LockWriteRow & { ord: number }>`select * from lock_writes(cast(${items} as json))`.execute(database.kysely);
  const byOrd = new Map(rows.map((row) => [row.ord, row]));
  return writes.map((_write, index) => {
    const row = byOrd.get(index + 1);
    if (row === undefined) throw new Error(`lock_writes answered no row for item ${index + 1}`);
    return row;
  });
}

/** The batches of lock writes of one database (PostgreSQL), built by the composition root (src/context.ts). */
export class LockWrites {
  private readonly batch: StatementBatch<LockWrite, LockWriteRow>;

  constructor(database: Database) {
    this.batch = new StatementBatch((writes) => sendLockWrites(database, writes), { separable: isRefusedStatement });
  }

  /** Runs `write` in the next batch. */
  write(write: LockWrite): Promise<LockWriteRow> {
    return this.batch.run(write);
  }
}
