import type { Lock } from '../api/types';
import { useOpenAlarms } from '../hooks/alarms';
import { Link } from './ui';

/** An alarm kind as a badge says it: `held_open` → "held open" (the alarms pages have the full words, pages/alarms/parts.tsx). */
const short = (kind: string) => kind.replace(/_/g, ' ');

/**
 * What needs attention on a lock, phone first: a lockdown the lock says it enforces, and (for its
 * administrators) its open alarms, each linking to the lock's alarms. On the list (`compact`) a
 * line of badges; on the lock's page a banner.
 */
export function AlarmBanner({ lock, compact = false }: { lock: Lock; compact?: boolean }) {
  const alarms = useOpenAlarms().get(lock.id) ?? [];
  const lockedDown = lock.state.lockedDown === true;
  if (!lockedDown && alarms.length === 0) return null;
  const more = lock.role === 'ADMIN' ? `/locks/${lock.id}/alarms` : null;
  return (
    <div class={compact ? 'alarm-line' : 'alarm-banner'} role="status" data-alarms={alarms.map((a) => a.kind).join(' ')}>
      {lockedDown && <span class="badge alarm" data-state="lockdown">Locked down{compact ? '' : ': only responders may unlock'}</span>}
      {alarms.map((alarm) => <span key={alarm.id} class="badge alarm" data-alarm={alarm.kind}>{short(alarm.kind)}</span>)}
      {more && !compact && <Link to={more}>See alarms</Link>}
    </div>
  );
}
