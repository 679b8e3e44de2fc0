import { useState } from 'preact/hooks';
import type { Lockdown } from '../../api/types';
import { Check, ErrorText, Field, Notice, when } from '../../components/ui';
import { useUserId } from '../../hooks/context';
import { useDeclareLockdown, useLiftLockdown } from '../../hooks/lockdowns';
import { memberName, useMembersOfAny } from '../../hooks/members';

const doors = (n: number) => `${n} door${n === 1 ? '' : 's'}`;
const admins = (n: number) => `${n} administrator${n === 1 ? '' : 's'}`;
const responders = (n: number) => `${n} responder${n === 1 ? '' : 's'}`;
/** What the doors refuse, in words: every unlock, or every one but the responders'. */
const refused = (n: number) => (n === 0 ? 'refuse every unlock' : `refuse every unlock but those of ${responders(n)}`);

/** The API's limit on a lockdown's responders (src/operations/lockdown-operation.ts, MAX_RESPONDERS). */
const MAX_RESPONDERS = 50;

/**
 * The responders of a lockdown to declare: people who are members of at least one of `lockIds`,
 * each a checkbox; their own unlocks still open the doors they may use, checked by each lock
 * from the signed declaration (src/lock-edge/lockdown.ts), and by the service.
 */
function ResponderPicker({ lockIds, chosen, onChosen }: { lockIds: string[]; chosen: ReadonlySet<string>; onChosen: (next: ReadonlySet<string>) => void }) {
  const me = useUserId();
  const { people, error } = useMembersOfAny(lockIds);
  const toggle = (userId: string, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(userId);
    else next.delete(userId);
    onChosen(next);
  };
  const label = (person: NonNullable<typeof people>[number]) =>
    `${memberName(person.member)}${person.member.userId === me ? ' (you)' : ''}${person.doors < lockIds.length ? `, on ${person.doors} of ${doors(lockIds.length)}` : ''}`;
  return (
    <fieldset class="responders">
      <legend>Responders who may still unlock (optional)</legend>
      <ErrorText error={error} />
      {!error && people === undefined && <p role="status">Loading the members of {lockIds.length === 1 ? 'this door' : 'these doors'}…</p>}
      {people?.length === 0 && <p class="muted">No one is a member of {lockIds.length === 1 ? 'this door' : 'these doors'}.</p>}
      {people?.map((person) => <Check key={person.member.userId} label={label(person)} checked={chosen.has(person.member.userId)} onValue={(on) => toggle(person.member.userId, on)} />)}
      <p class={chosen.size > MAX_RESPONDERS ? 'error' : 'muted'} role="status">
        {chosen.size > MAX_RESPONDERS
          ? `At most ${MAX_RESPONDERS} responders: ${chosen.size} chosen.`
          : chosen.size === 0 ? 'No responder: no one may unlock until the lift.' : `${responders(chosen.size)} chosen: only their unlocks open the doors they may use.`}
      </p>
    </fieldset>
  );
}

/**
 * The lockdown button, asked twice: it says what follows (every unlock refused at the doors
 * themselves but the responders' chosen here; lifting takes k administrators, each from their own
 * console) and takes k and the responders first. `sub` names what is locked down (a lock, or the
 * site of all `lockIds`).
 */
export function DeclareLockdown({ sub, lockIds, title }: { sub: string; lockIds: string[]; title: string }) {
  const [asking, setAsking] = useState(false);
  const [quorum, setQuorum] = useState('1');
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set());
  const [done, setDone] = useState('');
  const declare = useDeclareLockdown();
  if (!asking || lockIds.length === 0) {
    return (
      <div class="actions">
        {lockIds.length > 0 && <button type="button" class="danger" disabled={declare.isPending} onClick={() => { setDone(''); setChosen(new Set()); setAsking(true); }}>Lock down {title}</button>}
        {done && <Notice>{done}</Notice>}
        <ErrorText error={declare.error} />
      </div>
    );
  }
  const k = Number(quorum);
  const n = chosen.size;
  return (
    <form class="confirm" aria-label={`Lock down ${title}`} onSubmit={(e) => {
      e.preventDefault();
      if (n > MAX_RESPONDERS) return;
      setAsking(false);
      declare.mutate({ sub, lockIds, quorum: k, responders: [...chosen] }, { onSuccess: () => setDone(`${title} is locked down: ${doors(lockIds.length)} ${refused(n)}.`) });
    }}>
      <p>
        Lock down {title}? {doors(lockIds.length)} will lock and {refused(n)}, keypad codes too, whatever this service
        says, until {k >= 1 ? admins(k) : 'the administrators you choose'} each sign the lift from their own console.
      </p>
      <Field label="Administrators needed to lift it" type="number" min={1} max={10} required value={quorum} onValue={setQuorum} hint="1 to 10: one stolen key can then not reopen these doors." />
      <ResponderPicker lockIds={lockIds} chosen={chosen} onChosen={setChosen} />
      <button type="submit" class="danger" disabled={n > MAX_RESPONDERS}>Yes, lock down {doors(lockIds.length)}</button>
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
      <p data-responders={lockdown.responders.length}>
        {lockdown.responders.length === 0
          ? 'No responder: every unlock is refused.'
          : `Responders who may still unlock: ${lockdown.responders.map((person) => (person.userId === me ? 'you' : person.name ?? 'a member')).join(', ')}.`}
      </p>
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
