import { useCallback, useState } from 'preact/hooks';
import type { LiveEntry, Lock } from '../../api/types';
import { AuditTable, Filters, downloadCsv, lockRow, type Row } from '../../components/audit-table';
import { VerificationSummary } from '../../components/audit-verify';
import { ErrorText, Section, fromLocalInput } from '../../components/ui';
import { useLockLog, useVerification } from '../../hooks/audit';
import { useLiveEntries } from '../../hooks/live';

/** A lock's trail, newest first, with entries arriving live while it is open. */
export function LockAudit({ lock }: { lock: Lock }) {
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [live, setLive] = useState<Row[]>([]);
  const log = useLockLog(lock.id, fromLocalInput(from), fromLocalInput(to));
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
      <AuditTable rows={rows} caption={`Entries of ${lock.name}, newest first`} verification={verification.data} />
    </Section>
  );
}
