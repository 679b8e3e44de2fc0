import type { ShownEntry } from '../api/shown-entry';
import type { LiveEntry, LockLogEntry } from '../api/types';
import type { Verification } from '../api/audit-proof';
import { CheckCell, checkOf } from './audit-verify';
import { csvText } from './csv';
import { Field, when } from './ui';

/** A row of an audit table, and the entry it shows (what the browser checks against the signed log). */
export interface Row { timestamp: number; who: string; what: string; lock: string; detail: string; rejected: boolean; entry: ShownEntry }

/** The export of an audit table: a header line, then a line per row. */
export function auditCsv(rows: Row[]): string {
  return csvText([['time (UTC)', 'who', 'what', 'lock', 'detail', 'refused'], ...rows.map((r) => [new Date(r.timestamp * 1000).toISOString(), r.who, r.what, r.lock, r.detail, r.rejected ? 'yes' : 'no'])]);
}

/** Saves `rows` as a CSV file the browser downloads. */
export function downloadCsv(name: string, rows: Row[]): void {
  const blob = new Blob([auditCsv(rows)], { type: 'text/csv' });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** The period's two ends, as datetime-local values. */
export function Filters(props: { from: string; to: string; setFrom: (v: string) => void; setTo: (v: string) => void }) {
  return (
    <div class="filters">
      <Field label="From" type="datetime-local" value={props.from} onValue={props.setFrom} />
      <Field label="To" type="datetime-local" value={props.to} onValue={props.setTo} />
    </div>
  );
}

export function AuditTable({ rows, caption, verification }: { rows: Row[]; caption: string; verification: Verification | undefined }) {
  return (
    <div class="table-wrap">
      <table class="audit">
        <caption>{caption}</caption>
        <thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">Lock</th><th scope="col">Detail</th><th scope="col">Signed log</th></tr></thead>
        <tbody>
          {rows.map((r, i) => {
            const check = checkOf(verification, r.entry);
            return (
              <tr key={`${r.timestamp}-${i}`} class={r.rejected ? 'refused' : ''} data-type={r.what} data-verified={check.status}>
                <td>{when(r.timestamp)}</td><td>{r.who}</td><td>{r.what}{r.rejected && <span class="badge warn"> refused</span>}</td><td>{r.lock}</td><td>{r.detail}</td><CheckCell check={check} />
              </tr>
            );
          })}
        </tbody>
      </table>
      {rows.length === 0 && <p>No entries in this period.</p>}
    </div>
  );
}

/** A row of a lock's log entry, as the lock's trail and the live stream give it. */
export const lockRow = (lockId: string, lockName: string) => (e: LockLogEntry | LiveEntry): Row => ({
  timestamp: e.timestamp,
  who: e.displayName ?? e.email ?? e.user ?? 'the lock',
  what: e.type,
  lock: lockName,
  detail: e.message,
  // An old lock log (v1) has no `rejected` field; its message says when an operation was refused.
  rejected: e.rejected ?? /\brefused\b/i.test(e.message),
  entry: { lockId, timestamp: e.timestamp, type: e.type, issuer: e.user ?? lockId, message: e.message, rejected: e.rejected, actorEmail: e.email, actorDisplayName: e.displayName },
});
