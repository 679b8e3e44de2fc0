import { useState } from 'preact/hooks';
import type { Lock, Member, Role } from '../../api/types';
import { ConfirmButton, ErrorText, Field, Form, Link, Section, Select, fromLocalInput, toLocalInput, when } from '../../components/ui';
import { useUserId } from '../../hooks/context';
import { describeHours } from '../../components/hours';
import { ShareForm } from '../../components/share-form';
import { useMembers, useRemoveMember, useShare } from '../../hooks/locks';
import { together } from '../../hooks/mutations';

/** What a row shows of a member (the viewer's own row, on a lock they do not administer, has no more). */
type ShownMember = Pick<Member, 'userId' | 'email' | 'displayName' | 'role' | 'start' | 'end' | 'orphan' | 'pending' | 'schedule'>;

/** Why a member cannot open the lock yet: a held share (email not verified) or an invitation nobody has taken up. */
function memberStatus(member: ShownMember): { badge: string; note: string } | null {
  if (member.pending && member.orphan) return { badge: 'invited · pending', note: 'Invited by email: no account yet. No access until they register with this address and verify it.' };
  if (member.pending) return { badge: 'waiting for email verification', note: 'No access yet: the share is held until they verify their email address; the lock does not know them until then.' };
  if (member.orphan) return { badge: 'invited', note: 'Invited by email: they have no account yet. The share starts once they register with this address and verify it.' };
  return null;
}

/** What leaving means, said before it happens: for the last member, the lock returns to unclaimed. */
function leavingMeans(lock: Lock, others: ShownMember[] | undefined): string {
  if (lock.role !== 'ADMIN') return 'You will no longer be able to open this door; only an admin can share it with you again.';
  if (others === undefined) return 'You will no longer be able to open or manage this door.';
  if (others.length === 0) {
    return 'You are its last member: the lock becomes unclaimed, its settings are cleared, and whoever holds its registration key can claim it again.';
  }
  if (!others.some((m) => m.role === 'ADMIN' && m.end === null && !m.pending)) {
    return 'You are its last admin and others still use it: the service will refuse. Make someone else an admin first.';
  }
  return 'You will no longer be able to open or manage this door.';
}

function MemberRow({ lock, member, canManage, others }: { lock: Lock; member: ShownMember; canManage: boolean; others?: ShownMember[] | undefined }) {
  const me = useUserId();
  const [role, setRole] = useState<Role>(member.role);
  const [start, setStart] = useState(toLocalInput(member.start));
  const [end, setEnd] = useState(toLocalInput(member.end));
  const [editing, setEditing] = useState(false);
  const remove = useRemoveMember(lock.id);
  const change = useShare(lock.id);
  const { error, busy } = together(remove, change);
  const who = member.displayName ? (member.email ? `${member.displayName} (${member.email})` : member.displayName) : (member.email ?? member.userId);
  const status = memberStatus(member);
  const revoke = () => remove.mutate(member.userId);
  return (
    <li class={status ? 'member held' : 'member'} data-user={member.email ?? member.userId} data-pending={member.pending ? 'true' : undefined}>
      <div>
        <strong>{who}</strong> <span class="role">{member.role}</span>
        {status && <span class="badge warn">{status.badge}</span>}
      </div>
      {status && <div class="held-note">{status.note}</div>}
      <div class="muted">{member.start === null && member.end === null ? 'No time limit' : `From ${member.start === null ? 'now' : when(member.start)} until ${member.end === null ? 'revoked' : when(member.end)}`}</div>
      {member.schedule && <div class="muted" data-hours="true">Hours: {describeHours(member.schedule)}</div>}
      {canManage && member.userId !== me && !editing && (
        <div class="actions">
          <button type="button" class="secondary" onClick={() => setEditing(true)} aria-label={`Change role or window of ${who}`}>Change</button>
          <Link to={`/users/${member.userId}/activity?name=${encodeURIComponent(member.email ?? member.userId)}`} label={`Activity of ${who}`}>Activity</Link>
          <ConfirmButton busy={busy} label={`Revoke ${who}`} confirm={`Yes, revoke ${who}`} question={`Revoke ${who}? They lose access to ${lock.name} at once.`} onConfirm={revoke}>Revoke</ConfirmButton>
        </div>
      )}
      {editing && (
        <Form label={`Change ${who}`} class="inline-form" onSubmit={() => change.mutate(
          { email: member.email ?? '', userId: member.userId, role, start: fromLocalInput(start), end: fromLocalInput(end) },
          { onSuccess: () => setEditing(false) },
        )}>
          <Select label="Role" value={role} options={[['USER', 'User'], ['ADMIN', 'Admin']]} onValue={setRole} />
          <Field label="Starts" type="datetime-local" value={start} onValue={setStart} />
          <Field label="Ends" type="datetime-local" value={end} onValue={setEnd} />
          <button type="submit" disabled={busy}>Save</button>
          <button type="button" class="secondary" onClick={() => setEditing(false)}>Cancel</button>
        </Form>
      )}
      {member.userId === me && (
        <ConfirmButton class="secondary" busy={busy} confirm="Yes, leave this lock" question={`Leave ${lock.name}? ${leavingMeans(lock, others)}`} onConfirm={revoke}>Leave this lock</ConfirmButton>
      )}
      <ErrorText error={error} />
    </li>
  );
}

export function Members({ lock }: { lock: Lock }) {
  const me = useUserId();
  const members = useMembers(lock);
  if (lock.role !== 'ADMIN') {
    return (
      <Section title="Your access">
        <p>Only the lock's admins see its members.</p>
        <ul class="members">
          <MemberRow lock={lock} member={{ userId: me, email: null, displayName: 'You', role: lock.role, start: lock.start, end: lock.end, orphan: false, pending: false, ...(lock.schedule ? { schedule: lock.schedule } : {}) }} canManage={false} />
        </ul>
      </Section>
    );
  }
  return (
    <Section title="Members">
      <ErrorText error={members.error} />
      <ul class="members">{(members.data ?? []).map((m) => <MemberRow key={m.userId} lock={lock} member={m} canManage others={members.data?.filter((o) => o.userId !== m.userId)} />)}</ul>
      {(members.data ?? []).some((m) => m.pending) && <p class="muted">Shares to people who have not verified their email are held until they do.</p>}
      <ShareForm lockIds={[lock.id]} />
    </Section>
  );
}
