import { useQuery, useQueryClient } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { api, currentUserId } from '../api';
import { execute } from '../keys';
import { navigate } from '../router';
import type { Lock, Member, Role } from '../types';
import { Check, ErrorText, Field, Form, Link, Notice, Section, Select, fromLocalInput, toLocalInput, when } from '../ui';
import { useAction } from './auth';
import { LockAudit } from './audit';
import { LockButtons, StateBadges } from './locks';
import { LockSettings } from './settings';

export function useLock(id: string) {
  return useQuery({ queryKey: ['lock', id], queryFn: () => api.get<Lock>(`/device/${encodeURIComponent(id)}`) });
}

function Appearance({ lock }: { lock: Lock }) {
  const client = useQueryClient();
  const [name, setName] = useState(lock.name);
  const [colour, setColour] = useState(lock.colour ?? '#1f4e79');
  const [saved, setSaved] = useState('');
  const { error, busy, run } = useAction();
  const [favourite, setFavourite] = useState(lock.favourite);
  const [hidden, setHidden] = useState(!!lock.settings.hidden);
  const save = (body: Record<string, unknown>, message: string, undo?: () => void) => run(async () => {
    setSaved('');
    try {
      await api.put(`/device/${lock.id}`, body);
    } catch (err) {
      undo?.();
      throw err;
    }
    setSaved(message);
    await Promise.all([client.invalidateQueries({ queryKey: ['lock', lock.id] }), client.invalidateQueries({ queryKey: ['locks'] })]);
  });
  /** A checkbox shows its new state at once, and goes back if the service refuses it. */
  const toggle = (set: (on: boolean) => void, on: boolean, body: Record<string, unknown>, message: string) => {
    set(on);
    void save(body, message, () => set(!on));
  };
  return (
    <Section title="Name and appearance">
      <Form label="Rename" class="inline-form" onSubmit={() => save({ name, colour }, 'Saved.')}>
        <Field label="Name" required maxLength={100} value={name} onValue={setName} />
        <Field label="Colour" type="color" value={colour} onValue={setColour} />
        <button type="submit" disabled={busy}>Save</button>
      </Form>
      <Check label="Favourite" checked={favourite} onValue={(on) => toggle(setFavourite, on, { favourite: on }, on ? 'Added to favourites.' : 'Removed from favourites.')} />
      <Check label="Hide from my list" checked={hidden} onValue={(on) => toggle(setHidden, on, { settings: { hidden: on } }, on ? 'Hidden from your list.' : 'Shown in your list.')} />
      {saved && <Notice>{saved}</Notice>}
      <ErrorText error={error} />
    </Section>
  );
}

/** Why a member cannot open the lock yet: a held share (email not verified) or an invitation nobody has taken up. */
function memberStatus(member: Member): { badge: string; note: string } | null {
  if (member.pending && member.orphan) return { badge: 'invited · pending', note: 'Invited by email: no account yet. No access until they register with this address and verify it.' };
  if (member.pending) return { badge: 'waiting for email verification', note: 'No access yet: the share is held until they verify their email address; the lock does not know them until then.' };
  if (member.orphan) return { badge: 'invited', note: 'Invited by email: they have no account yet. The share starts once they register with this address and verify it.' };
  return null;
}

function MemberRow({ lock, member, canManage }: { lock: Lock; member: Member; canManage: boolean }) {
  const client = useQueryClient();
  const me = currentUserId();
  const [role, setRole] = useState<Role>(member.role);
  const [start, setStart] = useState(toLocalInput(member.start));
  const [end, setEnd] = useState(toLocalInput(member.end));
  const [editing, setEditing] = useState(false);
  const { error, busy, run } = useAction();
  const who = member.displayName ? `${member.displayName} (${member.email ?? member.userId})` : (member.email ?? member.userId);
  const status = memberStatus(member);
  const refresh = () => client.invalidateQueries({ queryKey: ['members', lock.id] });
  const remove = () => run(async () => {
    await execute(me ?? '', lock.id, { type: 'REMOVE_USER', users: [member.userId] });
    if (member.userId === me) {
      await client.invalidateQueries({ queryKey: ['locks'] });
      navigate('/');
    } else await refresh();
  });
  return (
    <li class={status ? 'member held' : 'member'} data-user={member.email ?? member.userId} data-pending={member.pending ? 'true' : undefined}>
      <div>
        <strong>{who}</strong> <span class="role">{member.role}</span>
        {status && <span class="badge warn">{status.badge}</span>}
      </div>
      {status && <div class="held-note">{status.note}</div>}
      <div class="muted">{member.start === null && member.end === null ? 'No time limit' : `From ${member.start === null ? 'now' : when(member.start)} until ${member.end === null ? 'revoked' : when(member.end)}`}</div>
      {canManage && member.userId !== me && !editing && (
        <div class="actions">
          <button type="button" class="secondary" onClick={() => setEditing(true)} aria-label={`Change role or window of ${who}`}>Change</button>
          <Link to={`/users/${member.userId}/activity?name=${encodeURIComponent(member.email ?? member.userId)}`} label={`Activity of ${who}`}>Activity</Link>
          <button type="button" class="danger" disabled={busy} onClick={remove} aria-label={`Revoke ${who}`}>Revoke</button>
        </div>
      )}
      {editing && (
        <Form label={`Change ${who}`} class="inline-form" onSubmit={() => run(async () => {
          const invitee = await api.get<{ id: string; publicKey: string }>(`/share/invite/${encodeURIComponent(member.email ?? '')}`);
          await execute(me ?? '', lock.id, { type: 'ADD_USER', user: member.userId, publicKey: invitee.publicKey, role, start: fromLocalInput(start), end: fromLocalInput(end) });
          setEditing(false);
          await refresh();
        })}>
          <Select label="Role" value={role} options={[['USER', 'User'], ['ADMIN', 'Admin']]} onValue={setRole} />
          <Field label="Starts" type="datetime-local" value={start} onValue={setStart} />
          <Field label="Ends" type="datetime-local" value={end} onValue={setEnd} />
          <button type="submit" disabled={busy}>Save</button>
          <button type="button" class="secondary" onClick={() => setEditing(false)}>Cancel</button>
        </Form>
      )}
      {member.userId === me && (
        <button type="button" class="secondary" disabled={busy} onClick={remove}>Leave this lock</button>
      )}
      <ErrorText error={error} />
    </li>
  );
}

function Members({ lock }: { lock: Lock }) {
  const client = useQueryClient();
  const members = useQuery({ queryKey: ['members', lock.id], queryFn: () => api.get<Member[]>(`/device/${lock.id}/users`), enabled: lock.role === 'ADMIN' });
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('USER');
  const [start, setStart] = useState('');
  const [end, setEnd] = useState('');
  const [shared, setShared] = useState('');
  const { error, busy, run } = useAction();
  if (lock.role !== 'ADMIN') {
    return (
      <Section title="Members">
        <p>Only the lock's admins see its members.</p>
        <MemberRow lock={lock} member={{ userId: currentUserId() ?? '', email: null, displayName: 'You', role: lock.role, start: lock.start, end: lock.end, orphan: false }} canManage={false} />
      </Section>
    );
  }
  return (
    <Section title="Members">
      <ErrorText error={members.error} />
      <ul class="members">{(members.data ?? []).map((m) => <MemberRow key={m.userId} lock={lock} member={m} canManage />)}</ul>
      {(members.data ?? []).some((m) => m.pending) && <p class="muted">Shares to people who have not verified their email are held until they do.</p>}
      <Form label="Share this lock" class="inline-form" onSubmit={() => run(async () => {
        const invitee = await api.get<{ id: string; publicKey: string }>(`/share/invite/${encodeURIComponent(email.trim())}`);
        await execute(currentUserId() ?? '', lock.id, { type: 'ADD_USER', user: invitee.id, publicKey: invitee.publicKey, role, start: fromLocalInput(start), end: fromLocalInput(end) });
        setShared(`Shared with ${email.trim()}.`);
        setEmail('');
        await client.invalidateQueries({ queryKey: ['members', lock.id] });
      })}>
        <h3>Share</h3>
        <Field label="Email of the person to share with" type="email" required value={email} onValue={setEmail} hint="Someone without an account is invited by email." />
        <Select label="Role" value={role} options={[['USER', 'User'], ['ADMIN', 'Admin']]} onValue={setRole} />
        <Field label="Starts (optional)" type="datetime-local" value={start} onValue={setStart} />
        <Field label="Ends (optional)" type="datetime-local" value={end} onValue={setEnd} />
        <button type="submit" disabled={busy}>Share</button>
        {shared && <Notice>{shared}</Notice>}
        <ErrorText error={error} />
      </Form>
    </Section>
  );
}

const TABS = [['', 'Overview'], ['members', 'Members'], ['settings', 'Settings'], ['audit', 'Audit']] as const;

export function LockPage({ id, tab }: { id: string; tab: string }) {
  const lock = useLock(id);
  if (lock.error) return <main><h1>Lock</h1><ErrorText error={lock.error} /><p><Link to="/">Back to your locks</Link></p></main>;
  if (!lock.data) return <main><p role="status">Loading…</p></main>;
  const data = lock.data;
  return (
    <main>
      <p><Link to="/">← Locks</Link></p>
      <h1>{data.name}</h1>
      <StateBadges lock={data} />
      <nav class="tabs" aria-label="Lock sections">
        {TABS.map(([slug, title]) => (
          <Link key={slug} to={`/locks/${id}${slug ? `/${slug}` : ''}`} class={tab === slug ? 'tab current' : 'tab'}>{title}</Link>
        ))}
      </nav>
      {tab === '' && (
        <>
          <Section title="Operate"><LockButtons lock={data} /></Section>
          <Appearance lock={data} />
        </>
      )}
      {tab === 'members' && <Members lock={data} />}
      {tab === 'settings' && <LockSettings lock={data} />}
      {tab === 'audit' && <LockAudit lock={data} />}
    </main>
  );
}
