import { useQuery } from '@tanstack/preact-query';
import { useCallback, useState } from 'preact/hooks';
import { api, currentUserId } from '../api';
import type { ShownEntry } from '../audit-entry';
import type { LiveEntry } from '../events';
import { useLiveEntries } from '../live';
import type { Lock, LockLogEntry, UserLogEntry } from '../types';
import { ErrorText, Field, Section, fromLocalInput, when } from '../ui';
import { CheckCell, VerificationSummary, checkOf, useVerification } from './audit-verify';
import type { Verification } from '../verify';

interface Row { timestamp: number; who: string; what: string; lock: string; detail: string; rejected: boolean; entry: ShownEntry }

function csvCell(value: string): string {
  return /[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** Saves `rows` as a CSV file the browser downloads. */
function downloadCsv(name: string, rows: Row[]): void {
  const lines = [['time (UTC)', 'who', 'what', 'lock', 'detail', 'refused'], ...rows.map((r) => [new Date(r.timestamp * 1000).toISOString(), r.who, r.what, r.lock, r.detail, r.rejected ? 'yes' : 'no'])];
  const blob = new Blob([lines.map((line) => line.map(csvCell).join(',')).join('\r\n') + '\r\n'], { type: 'text/csv' });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function Filters(props: { from: string; to: string; setFrom: (v: string) => void; setTo: (v: string) => void }) {
  return (
    <div class="filters">
      <Field label="From" type="datetime-local" value={props.from} onValue={props.setFrom} />
      <Field label="To" type="datetime-local" value={props.to} onValue={props.setTo} />
    </div>
  );
}

function query(from: string, to: string): string {
  const params = new URLSearchParams();
  const start = fromLocalInput(from);
  const end = fromLocalInput(to);
  if (start !== null) params.set('start', String(start));
  if (end !== null) params.set('end', String(end));
  const text = params.toString();
  return text ? `?${text}` : '';
}

function Table({ rows, caption, verification }: { rows: Row[]; caption: string; verification: Verification | undefined }) {
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

const lockRow = (lockId: string, lockName: string) => (e: LockLogEntry | LiveEntry): Row => ({
  timestamp: e.timestamp,
  who: e.displayName ?? e.email ?? e.user ?? 'the lock',
  what: e.type,
  lock: lockName,
  detail: e.message,
  // An old lock log (v1) has no `rejected` field; its message says when an operation was refused.
  rejected: e.rejected ?? /\brefused\b/i.test(e.message),
  entry: { lockId, timestamp: e.timestamp, type: e.type, issuer: e.user ?? lockId, message: e.message, rejected: e.rejected, actorEmail: e.email, actorDisplayName: e.displayName },
});

/** A lock's trail, newest first, with entries arriving live while it is open. */
export function LockAudit({ lock }: { lock: Lock }) {
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [live, setLive] = useState<Row[]>([]);
  const log = useQuery({ queryKey: ['log', lock.id, from, to], queryFn: () => api.get<LockLogEntry[]>(`/device/${lock.id}/log${query(from, to)}`) });
  const toRow = lockRow(lock.id, lock.name);
  const onEntry = useCallback((entry: LiveEntry) => {
    if (entry.deviceId === lock.id && !to) setLive((rows) => [toRow(entry), ...rows]);
  }, [lock.id, to]);
  useLiveEntries(onEntry);
  const seen = new Set((log.data ?? []).map((e) => `${e.timestamp}|${e.type}|${e.message}`));
  const rows = [...live.filter((r) => !seen.has(`${r.timestamp}|${r.what}|${r.detail}`)), ...(log.data ?? []).map(toRow)];
  const entries = rows.map((r) => r.entry);
  const verification = useVerification(entries, new Set(lock.role === 'ADMIN' ? [lock.id] : []), `lock:${lock.id}:${from}`, fromLocalInput(to), log.isSuccess);
  return (
    <Section title="Audit trail">
      <Filters from={from} to={to} setFrom={setFrom} setTo={setTo} />
      <button type="button" class="secondary" onClick={() => downloadCsv(`audit-${lock.id}.csv`, rows)}>Export CSV</button>
      <ErrorText error={log.error} />
      <VerificationSummary query={verification} entries={entries} />
      <Table rows={rows} caption={`Entries of ${lock.name}, newest first`} verification={verification.data} />
    </Section>
  );
}

/** A user's trail across locks: the signed-in user's own, or (for a lock's admin) a member's. */
export function UserAudit({ userId: asked, label }: { userId?: string; label?: string }) {
  const me = currentUserId() ?? '';
  const userId = asked ?? me;
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const log = useQuery({ queryKey: ['userlog', userId, from, to], queryFn: () => api.get<UserLogEntry[]>(`/user/${userId}/log${query(from, to)}`) });
  const locks = useQuery({ queryKey: ['locks'], queryFn: () => api.get<Lock[]>('/device') });
  const names = new Map((locks.data ?? []).map((l) => [l.id, l.name]));
  const [live, setLive] = useState<Row[]>([]);
  const onEntry = useCallback((entry: LiveEntry) => {
    if (!to && entry.user === userId) setLive((rows) => [lockRow(entry.deviceId, names.get(entry.deviceId) ?? entry.deviceId)(entry), ...rows]);
  }, [to, names, userId]);
  useLiveEntries(onEntry);
  const rows = [
    ...live,
    ...(log.data ?? []).map((e): Row => ({
      timestamp: e.timestamp,
      who: e.issuer.userId === me ? 'you' : e.issuer.userId === userId ? (label ?? userId) : (e.issuer.userId ?? 'the lock'),
      what: e.type,
      lock: names.get(e.deviceId) ?? e.deviceId,
      detail: e.subject ? `about ${e.subject.email ?? e.subject.userId}` : '',
      rejected: e.rejected,
      entry: { lockId: e.deviceId, timestamp: e.timestamp, type: e.type, issuer: e.issuer.userId ?? e.deviceId, rejected: e.rejected, subject: e.subject?.userId },
    })),
  ];
  const entries = rows.map((r) => r.entry);
  const administered = new Set((locks.data ?? []).filter((l) => l.role === 'ADMIN').map((l) => l.id));
  const verification = useVerification(entries, administered, `user:${userId}:${from}`, fromLocalInput(to), log.isSuccess && locks.isSuccess);
  return (
    <main>
      <h1>{userId === me ? 'My activity' : `Activity of ${label ?? userId}`}</h1>
      <Section title={userId === me ? 'Your trail' : 'Their trail'}>
        <Filters from={from} to={to} setFrom={setFrom} setTo={setTo} />
        <button type="button" class="secondary" onClick={() => downloadCsv('my-activity.csv', rows)}>Export CSV</button>
        <ErrorText error={log.error} />
        <VerificationSummary query={verification} entries={entries} />
        <Table rows={rows} caption={`${userId === me ? 'Your' : 'Their'} entries across locks, newest first`} verification={verification.data} />
      </Section>
    </main>
  );
}
