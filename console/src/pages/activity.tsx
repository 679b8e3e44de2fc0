import { useCallback, useState } from 'preact/hooks';
import type { LiveEntry } from '../api/types';
import { AuditTable, Filters, downloadCsv, lockRow, type Row } from '../components/audit-table';
import { VerificationSummary } from '../components/audit-verify';
import { ErrorText, Section, fromLocalInput } from '../components/ui';
import { useUserLog, useVerification } from '../hooks/audit';
import { useUserId } from '../hooks/context';
import { useLiveEntries } from '../hooks/live';
import { useLocks } from '../hooks/locks';

/** A user's trail across locks: the signed-in user's own, or (for a lock's admin) a member's. */
export function ActivityPage({ userId: asked, label }: { userId?: string; label?: string }) {
  const me = useUserId();
  const userId = asked ?? me;
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const log = useUserLog(userId, fromLocalInput(from), fromLocalInput(to));
  const locks = useLocks();
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
        <AuditTable rows={rows} caption={`${userId === me ? 'Your' : 'Their'} entries across locks, newest first`} verification={verification.data} />
      </Section>
    </main>
  );
}
