import { useState } from 'preact/hooks';
import type { Lockdown } from '../../api/types';
import { ErrorText, Field, Notice, when } from '../../components/ui';
import { useUserId } from '../../hooks/context';
import { useDeclareLockdown, useLiftLockdown } from '../../hooks/lockdowns';

const doors = (n: number) => `${n} door${n === 1 ? '' : 's'}`;
const admins = (n: number) => `${n} administrator${n === 1 ? '' : 's'}`;

/**
 * The lockdown button, asked twice: it says what follows (every unlock refused at the doors
 * themselves; lifting takes k administrators, each from their own console) and takes k first.
 * `sub` names what is locked down (a lock, or the site of all `lockIds`).
 */
export function DeclareLockdown({ sub, lockIds, title }: { sub: string; lockIds: string[]; title: string }) {
  const [asking, setAsking] = useState(false);
  const [quorum, setQuorum] = useState('1');
  const [done, setDone] = useState('');
  const declare = useDeclareLockdown();
  if (!asking || lockIds.length === 0) {
    return (
      <div class="actions">
        {lockIds.length > 0 && <button type="button" class="danger" disabled={declare.isPending} onClick={() => { setDone(''); setAsking(true); }}>Lock down {title}</button>}
        {done && <Notice>{done}</Notice>}
        <ErrorText error={declare.error} />
      </div>
    );
  }
  const k = Number(quorum);
  return (
    <form class="confirm" aria-label={`Lock down ${title}`} onSubmit={(e) => {
      e.preventDefault();
      setAsking(false);
      declare.mutate({ sub, lockIds, quorum: k }, { onSuccess: () => setDone(`${title} is locked down: ${doors(lockIds.length)} refuse every unlock.`) });
    }}>
      <p>
        Lock down {title}? {doors(lockIds.length)} will lock and refuse every unlock, keypad codes too, whatever this service
        says, until {k >= 1 ? admins(k) : 'the administrators you choose'} each sign the lift from their own console.
      </p>
      <Field label="Administrators needed to lift it" type="number" min={1} max={10} required value={quorum} onValue={setQuorum} hint="1 to 10: one stolen key can then not reopen these doors." />
      <button type="submit" class="danger">Yes, lock down {doors(lockIds.length)}</button>
      <button type="button" class="secondary" onClick={() => setAsking(false)}>Cancel</button>
    </form>
  );
}

/** Where a lock stands in a lockdown, in words: the service's count and the lock's own word. */
function lockStanding(lock: Lockdown['locks'][number], quorum: number): string {
  const at = lock.reported === 'in_force' ? 'the lock confirms it is locked down' : lock.reported === 'not_in_force' ? 'the lock says it is not locked down' : 'the lock has not said yet';
  if (lock.liftedAt !== null) return `lifted (${lock.lifts} of ${quorum} signatures); ${at}`;
  return `${lock.lifts} of ${quorum} signatures to lift; ${at}`;
}

/**
 * A lockdown holding on the caller's doors, and the k-of-n lift: who declared it and when, the
 * signatures so far, each door's standing, and this administrator's own signature (once).
 */
export function LockdownCard({ lockdown, nameOf }: { lockdown: Lockdown; nameOf: (lockId: string) => string }) {
  const me = useUserId();
  const lift = useLiftLockdown();
  const signed = lockdown.lifts.some((l) => l.userId === me);
  const holding = lockdown.locks.filter((l) => l.liftedAt === null);
  const name = (person: { name: string | null; userId: string }) => (person.userId === me ? 'you' : person.name ?? 'an administrator');
  const missing = lockdown.quorum - lockdown.lifts.length;
  return (
    <article class="lockdown" aria-label={`Lockdown declared by ${name(lockdown.declaredBy)}`} data-lockdown={lockdown.id}>
      <h3>Lockdown{lockdown.scope.kind === 'site' ? ' of the site' : lockdown.scope.kind === 'all' ? ' of all their doors' : ''}</h3>
      <p>Declared by {name(lockdown.declaredBy)} on {when(lockdown.declaredAt)}. Lifting takes {admins(lockdown.quorum)}.</p>
      {lockdown.responders.length > 0 && <p>Responders who may still unlock: {lockdown.responders.map(name).join(', ')}.</p>}
      <p data-lifts={lockdown.lifts.length}>
        Lift signed by {lockdown.lifts.length} of {lockdown.quorum}{lockdown.lifts.length > 0 ? `: ${lockdown.lifts.map(name).join(', ')}` : ''}.
      </p>
      <ul class="plain">
        {lockdown.locks.map((lock) => <li key={lock.lockId} data-lock-id={lock.lockId}><strong>{nameOf(lock.lockId)}</strong>: {lockStanding(lock, lockdown.quorum)}</li>)}
      </ul>
      {holding.length > 0 && (signed
        ? <p role="status">You signed the lift{missing > 0 ? `; ${admins(missing)} more must sign from their own console.` : '.'}</p>
        : <button type="button" disabled={lift.isPending} onClick={() => lift.mutate({ lockdownId: lockdown.id, lockIds: holding.map((l) => l.lockId) })}>Sign the lift ({lockdown.lifts.length + 1} of {lockdown.quorum})</button>)}
      <ErrorText error={lift.error} />
    </article>
  );
}
