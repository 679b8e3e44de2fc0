import { useQuery, useQueryClient } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { api, currentUserId } from '../api';
import { execute } from '../keys';
import type { Lock, Site } from '../types';
import { Check, ErrorText, Field, Form, Link, Notice, Section } from '../ui';
import { KeyPanel } from './account';
import { useAction } from './auth';

export function useLocks() {
  // Live events cover the locks already listed; a lock newly shared with you appears within a minute (or on focus).
  return useQuery({ queryKey: ['locks'], queryFn: () => api.get<Lock[]>('/device'), refetchInterval: 60_000 });
}

/** Which site each lock belongs to (GET /site, then each site's locks). */
function useSiteOfLock() {
  return useQuery({
    queryKey: ['sites'],
    queryFn: async () => {
      const sites = await api.get<Site[]>('/site');
      const bySite = await Promise.all(sites.map(async (site) => [site, await api.get<Array<{ id: string }>>(`/site/${site.id}/device`)] as const));
      const map = new Map<string, Site>();
      for (const [site, locks] of bySite) for (const lock of locks) map.set(lock.id, site);
      return map;
    },
  });
}

export function StateBadges({ lock }: { lock: Lock }) {
  const { connected, locked } = lock.state;
  return (
    <span class="badges" aria-live="polite">
      <span class={`badge ${connected ? 'ok' : 'warn'}`} data-state="connected">{connected ? 'connected' : 'offline'}</span>
      {locked !== undefined && connected && <span class={`badge ${locked ? 'neutral' : 'open'}`} data-state="locked">{locked ? 'locked' : 'unlocked'}</span>}
    </span>
  );
}

function needsLocation(lock: Lock): boolean {
  const location = lock.settings.usageRequirements?.location;
  return !!location && location.enabled !== false;
}

/** The device's position for a lock with a location requirement (the operation carries it). */
function currentPosition(): Promise<{ latitude: number; longitude: number; accuracy: number }> {
  return new Promise((resolve, reject) => {
    if (!('geolocation' in navigator)) return reject(new Error('This lock needs your location, and this browser cannot give it.'));
    navigator.geolocation.getCurrentPosition(
      (p) => resolve({ latitude: p.coords.latitude, longitude: p.coords.longitude, accuracy: p.coords.accuracy }),
      (err) => reject(new Error(`This lock needs your location: ${err.message || 'permission denied'}. Allow location for this site and try again.`)),
      { enableHighAccuracy: true, timeout: 15_000, maximumAge: 30_000 },
    );
  });
}

/** Unlock / lock, signed in this browser; shows the lock's confirmation or why it did not happen. */
export function LockButtons({ lock }: { lock: Lock }) {
  const userId = currentUserId() ?? '';
  const [result, setResult] = useState('');
  const { error, busy, run } = useAction();
  const operate = (locked: boolean) => run(async () => {
    setResult('');
    const location = needsLocation(lock) ? await currentPosition() : undefined;
    await execute(userId, lock.id, { type: 'MUTATE_LOCK', locked, ...(location ? { location } : {}) });
    setResult(locked ? `${lock.name} confirmed: locked.` : `${lock.name} confirmed: unlocked.`);
  });
  return (
    <div class="actions">
      <button type="button" disabled={busy} onClick={() => operate(false)} aria-label={`Unlock ${lock.name}`}>Unlock</button>
      <button type="button" class="secondary" disabled={busy} onClick={() => operate(true)} aria-label={`Lock ${lock.name}`}>Lock</button>
      {busy && <span role="status">Waiting for the lock…</span>}
      {result && <Notice>{result}</Notice>}
      <ErrorText error={error} />
    </div>
  );
}

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
      <LockButtons lock={lock} />
    </li>
  );
}

function Claim() {
  const client = useQueryClient();
  const [key, setKey] = useState('');
  const [name, setName] = useState('');
  const [done, setDone] = useState('');
  const { error, busy, run } = useAction();
  return (
    <Form label="Claim a lock" onSubmit={() => run(async () => {
      const lock = await api.post<Lock>('/device', { key: key.trim(), name: name.trim() });
      setKey('');
      setName('');
      setDone(`${lock.name} is yours.`);
      await Promise.all([client.invalidateQueries({ queryKey: ['locks'] }), client.invalidateQueries({ queryKey: ['sites'] })]);
    })}>
      <h2>Claim a lock</h2>
      <Field label="Registration key" required autoComplete="off" value={key} onValue={setKey} hint="The key that came with the lock." />
      <Field label="Name" required maxLength={100} value={name} onValue={setName} />
      <button type="submit" disabled={busy}>Claim</button>
      {done && <Notice>{done}</Notice>}
      <ErrorText error={error} />
    </Form>
  );
}

export function LocksPage({ search }: { search: URLSearchParams }) {
  const locks = useLocks();
  const sites = useSiteOfLock();
  const [showHidden, setShowHidden] = useState(false);
  const visible = (locks.data ?? []).filter((lock) => showHidden || !lock.settings.hidden);
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
      <KeyPanel />
      <ErrorText error={locks.error} />
      {locks.isPending && <p role="status">Loading locks…</p>}
      {locks.data && locks.data.length === 0 && <p>You have no locks yet. Claim one with its registration key.</p>}
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
