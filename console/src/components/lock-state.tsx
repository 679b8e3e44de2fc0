import { useState } from 'preact/hooks';
import type { Lock } from '../api/types';
import { useOperateLock } from '../hooks/locks';
import { ErrorText, Notice } from './ui';

export function StateBadges({ lock }: { lock: Lock }) {
  const { connected, locked } = lock.state;
  return (
    <span class="badges" aria-live="polite">
      <span class={`badge ${connected ? 'ok' : 'warn'}`} data-state="connected">{connected ? 'connected' : 'offline'}</span>
      {locked !== undefined && connected && <span class={`badge ${locked ? 'neutral' : 'open'}`} data-state="locked">{locked ? 'locked' : 'unlocked'}</span>}
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
