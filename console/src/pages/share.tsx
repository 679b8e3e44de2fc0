import { useState } from 'preact/hooks';
import type { Lock } from '../api/types';
import { ShareForm } from '../components/share-form';
import { Check, ErrorText, Section } from '../components/ui';
import { useLocks, useSiteOfLock } from '../hooks/locks';

/** The doors the caller administers, by site (those without one last). */
function administeredBySite(locks: Lock[], siteOf: (lockId: string) => { id: string; name: string } | undefined) {
  const groups = new Map<string, { title: string; locks: Lock[] }>();
  for (const lock of locks.filter((l) => l.role === 'ADMIN')) {
    const site = siteOf(lock.id);
    const key = site?.id ?? '';
    if (!groups.has(key)) groups.set(key, { title: site ? `All of ${site.name}` : 'Doors without a site', locks: [] });
    groups.get(key)!.locks.push(lock);
  }
  return [...groups.entries()].sort(([a], [b]) => Number(a === '') - Number(b === '')).map(([, group]) => group);
}

/** One person, several doors or a whole site, in one step: each door still gets its own signed share. */
export function SharePage() {
  const locks = useLocks();
  const sites = useSiteOfLock();
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const groups = administeredBySite(locks.data ?? [], (id) => sites.data?.get(id));
  const names = new Map((locks.data ?? []).map((lock) => [lock.id, lock.name]));
  const toggle = (ids: string[], on: boolean) => setSelected((current) => {
    const next = new Set(current);
    for (const id of ids) {
      if (on) next.add(id);
      else next.delete(id);
    }
    return next;
  });
  return (
    <main>
      <h1>Share doors</h1>
      <ErrorText error={locks.error ?? sites.error} />
      <Section title="Doors">
        {groups.length === 0 && locks.isSuccess && <p>You administer no door yet.</p>}
        {groups.map((group) => (
          <fieldset key={group.title} class="door-group">
            <legend>
              <Check label={group.title} checked={group.locks.every((l) => selected.has(l.id))} onValue={(on) => toggle(group.locks.map((l) => l.id), on)} />
            </legend>
            {group.locks.map((lock) => <Check key={lock.id} label={lock.name} checked={selected.has(lock.id)} onValue={(on) => toggle([lock.id], on)} />)}
          </fieldset>
        ))}
        <p class="muted" role="status">{selected.size === 0 ? 'Choose the doors to share.' : `${selected.size} door${selected.size === 1 ? '' : 's'} chosen.`}</p>
      </Section>
      <ShareForm lockIds={[...selected]} nameOf={(id) => names.get(id) ?? id} title="With" />
    </main>
  );
}
