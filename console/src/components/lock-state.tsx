import { useState } from 'preact/hooks';
import type { Lock } from '../api/types';
import { useOperateLock } from '../hooks/locks';
import { ErrorText, Notice } from './ui';

/** How a lock's kind (device protocol 1.2) reads to people. */
const KIND_NAMES: Record<string, string> = { zwave: 'Z-Wave', matter: 'Matter', simulator: 'simulator' };

export function StateBadges({ lock }: { lock: Lock }) {
  const { connected, locked, doorOpen, battery, jammed, tamper } = lock.state;
  const kind = lock.device?.kind;
  return (
    <span class="badges" aria-live="polite">
      <span class={`badge ${connected ? 'ok' : 'warn'}`} data-state="connected">{connected ? 'connected' : 'offline'}</span>
      {locked !== undefined && connected && <span class={`badge ${locked ? 'neutral' : 'open'}`} data-state="locked">{locked ? 'locked' : 'unlocked'}</span>}
      {kind !== undefined && <span class="badge neutral" data-state="kind">{KIND_NAMES[kind] ?? kind}</span>}
      {doorOpen !== undefined && <span class={`badge ${doorOpen ? 'open' : 'neutral'}`} data-state="door">{doorOpen ? 'door open' : 'door closed'}</span>}
      {battery !== undefined && <span class={`badge ${battery < 20 ? 'warn' : 'neutral'}`} data-state="battery">{`battery ${battery}%`}</span>}
      {jammed === true && <span class="badge warn" data-state="jammed">jammed</span>}
      {tamper === true && <span class="badge warn" data-state="tamper">tampered</span>}
    </span>
  );
}

/** Unlock / lock, signed in this browser; shows the lock's confirmation or why it did not happen. */
export function LockButtons({ lock }: { lock: Lock }) {
  const [result, setResult] = useState('');
  const operate = useOperateLock(lock);
  const run = (locked: boolean) => {
    setResult('');
    operate.mutate(locked, { onSuccess: () => setResult(locked ? `${lock.name} confirmed: locked.` : `${lock.name} confirmed: unlocked.`) });
  };
  return (
    <div class="actions">
      <button type="button" disabled={operate.isPending} onClick={() => run(false)} aria-label={`Unlock ${lock.name}`}>Unlock</button>
      <button type="button" class="secondary" disabled={operate.isPending} onClick={() => run(true)} aria-label={`Lock ${lock.name}`}>Lock</button>
      {operate.isPending && <span role="status">Waiting for the lock…</span>}
      {result && <Notice>{result}</Notice>}
      <ErrorText error={operate.error} />
    </div>
  );
}
