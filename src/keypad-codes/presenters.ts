import { readSchedule } from '../locks/json.js';
import { codeStatus, syncState, type CodeStatus } from './policy.js';
import type { CodeLockRow, CodeRow } from './queries.js';
import type { KeypadCode } from './schemas.js';

/** What a code's view needs beside its rows. */
export interface CodeViewFacts {
  /** Uses across every lock of the code (those the caller cannot see included). */
  uses: number;
  /** The holder's membership of each lock, by lock id; absent: none (a member's code then ends). */
  holderSince: Map<string, { created: number; start: number | null; end: number | null }>;
  appliedVersions: Map<string, number | null>;
  holderName: string | null;
  now: number;
}

/** The state of `row`'s code on its lock (src/keypad-codes/policy.ts). */
export function statusOnLock(code: CodeRow, row: CodeLockRow, uses: number, membership: { created: number; start: number | null; end: number | null } | undefined, now: number): CodeStatus {
  const holderMember = code.holder_user_id === null ? null : membership === undefined || membership.created !== row.member_since ? 'gone' : membership;
  return codeStatus({ start: code.starts_at, end: code.ends_at, maxUses: code.max_uses, uses }, { removedReason: row.removed_reason, holderMember }, now);
}

/** A code as its administrators see it: never its digits. `rows`: its places on the locks the caller administers. */
export function presentCode(code: CodeRow, rows: readonly CodeLockRow[], facts: CodeViewFacts): KeypadCode {
  return {
    id: code.id,
    holder: code.holder_user_id === null ? { kind: 'guest', userId: null, name: code.guest_name } : { kind: 'member', userId: code.holder_user_id, name: facts.holderName },
    length: code.length,
    start: code.starts_at,
    end: code.ends_at,
    schedule: readSchedule(code.schedule),
    maxUses: code.max_uses,
    uses: facts.uses,
    createdAt: code.created,
    createdBy: code.created_by,
    locks: rows.map((row) => ({
      lockId: row.lock_id,
      status: statusOnLock(code, row, facts.uses, facts.holderSince.get(row.lock_id), facts.now),
      uses: row.uses,
      lastUsedAt: row.last_used_at,
      sync: { state: syncState(row.changed_version, facts.appliedVersions.get(row.lock_id) ?? null, row.sync_error), version: row.changed_version, error: row.sync_error },
    })),
  };
}
