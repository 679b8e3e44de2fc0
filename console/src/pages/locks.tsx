import { useState } from 'preact/hooks';
import type { Lock } from '../api/types';
import { AlarmBanner } from '../components/alarms';
import { YourHours } from '../components/hours';
import { KeyPanel } from '../components/key-panel';
import { LockButtons, StateBadges } from '../components/lock-state';
import { Check, ErrorText, Field, Form, Link, Notice, Section } from '../components/ui';
import { useClaimLock, useLocks, useSiteOfLock, useWaitingShares } from '../hooks/locks';

function LockCard({ lock }: { lock: Lock }) {
  return (
    <li class="lock" data-lock-id={lock.id}>
      <div class="lock-head">
        <span class="swatch" style={{ background: lock.colour ?? '#888' }} aria-hidden="true" />
        <Link to={`/locks/${lock.id}`} class="lock-name">{lock.name}</Link>
        {lock.favourite && <span class="badge star" title="Favourite">★ favourite</span>}
        <span class="role">{lock.role}</span>
      </div>
      <StateBadges lock={lock} />
      <AlarmBanner lock={lock} compact />
      <YourHours schedule={lock.schedule} />
      <LockButtons lock={lock} />
    </li>
  );
}

function Claim() {
  const [key, setKey] = useState('');
  const [name, setName] = useState('');
  const [done, setDone] = useState('');
  const claim = useClaimLock();
  const { error, isPending: busy } = claim;
  const submit = () => {
    setDone('');
    claim.mutate({ key: key.trim(), name: name.trim() }, {
      onSuccess: (lock) => {
        setKey('');
        setName('');
        setDone(`${lock.name} is yours.`);
      },
    });
  };
  return (
    <Form label="Claim a lock" onSubmit={submit}>
      <h2>Claim a lock</h2>
      <Field label="Registration key" required autoComplete="off" value={key} onValue={setKey} hint="The key that came with the lock." />
      <Field label="Name" required maxLength={100} value={name} onValue={setName} />
      <button type="submit" disabled={busy}>Claim</button>
      {done && <Notice>{done}</Notice>}
      <ErrorText error={error} />
    </Form>
  );
}

/** An empty list: shares may be waiting for the email to be verified, which says what to do. */
function NoLocks() {
  const waiting = useWaitingShares(true);
  const count = waiting.data?.waiting ?? 0;
  if (count > 0) {
    return (
      <Notice>
        {count === 1 ? 'A share is' : `${count} shares are`} waiting for your email to be verified. Follow the link in the
        email we sent you (or send it again from <Link to="/account">Account</Link>); the door{count === 1 ? '' : 's'} then appear{count === 1 ? 's' : ''} here.
      </Notice>
    );
  }
  return <p>You have no locks yet. Claim one with its registration key.</p>;
}

export function LocksPage({ search }: { search: URLSearchParams }) {
  const locks = useLocks();
  const sites = useSiteOfLock();
  const [showHidden, setShowHidden] = useState(false);
  const [query, setQuery] = useState('');
  const words = query.trim().toLowerCase();
  const matches = (lock: Lock) => !words || `${lock.name} ${sites.data?.get(lock.id)?.name ?? ''}`.toLowerCase().includes(words);
  const visible = (locks.data ?? []).filter((lock) => (showHidden || !lock.settings.hidden) && matches(lock));
  const groups = new Map<string, { title: string; locks: Lock[] }>();
  for (const lock of visible) {
    const site = sites.data?.get(lock.id);
    const id = site?.id ?? '';
    if (!groups.has(id)) groups.set(id, { title: site?.name ?? 'Without a site', locks: [] });
    groups.get(id)!.locks.push(lock);
  }
  const ordered = [...groups.values()].sort((a, b) => a.title.localeCompare(b.title));
  for (const group of ordered) group.locks.sort((a, b) => Number(b.favourite) - Number(a.favourite) || a.name.localeCompare(b.name));
  const hiddenCount = (locks.data ?? []).filter((lock) => lock.settings.hidden).length;
  return (
    <main>
      <h1>Locks</h1>
      {search.get('welcome') && <Notice>Welcome! Check your email for the verification link, then certify this browser below.</Notice>}
      {search.get('visitor') && <Notice>Welcome! Your visitor pass is in this browser: open the door with its Unlock button while your access lasts. Keep this page; nothing to install.</Notice>}
      <KeyPanel />
      {(locks.data?.length ?? 0) > 1 && <Field label="Find a lock" type="search" value={query} onValue={setQuery} hint="By its name or its site's." />}
      {words && visible.length === 0 && <p role="status">No lock matches “{query.trim()}”.</p>}
      <ErrorText error={locks.error} />
      {locks.isPending && <p role="status">Loading locks…</p>}
      {locks.data && locks.data.length === 0 && <NoLocks />}
      {ordered.map((group) => (
        <Section key={group.title} title={group.title}>
          <ul class="locks">{group.locks.map((lock) => <LockCard key={lock.id} lock={lock} />)}</ul>
        </Section>
      ))}
      {hiddenCount > 0 && <Check label={`Show ${hiddenCount} hidden lock${hiddenCount === 1 ? '' : 's'}`} checked={showHidden} onValue={setShowHidden} />}
      <Claim />
    </main>
  );
}
