import type { Lock } from '../api/types';
import { useLocks, useSiteOfLock } from '../hooks/locks';
import { Check, ErrorText, Section } from './ui';

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

/**
 * The doors the caller administers, grouped by site, to choose several or a whole site at once
 * (sharing, keypad codes): `selected` is the caller's, `onSelected` gets the new set.
 */
export function DoorPicker({ selected, onSelected, verb }: { selected: ReadonlySet<string>; onSelected: (next: ReadonlySet<string>) => void; verb: string }) {
  const locks = useLocks();
  const sites = useSiteOfLock();
  const groups = administeredBySite(locks.data ?? [], (id) => sites.data?.get(id));
  const toggle = (ids: string[], on: boolean) => {
    const next = new Set(selected);
    for (const id of ids) {
      if (on) next.add(id);
      else next.delete(id);
    }
    onSelected(next);
  };
  return (
    <Section title="Doors">
      <ErrorText error={locks.error ?? sites.error} />
      {groups.length === 0 && locks.isSuccess && <p>You administer no door yet.</p>}
      {groups.map((group) => (
        <fieldset key={group.title} class="door-group">
          <legend>
            <Check label={group.title} checked={group.locks.every((l) => selected.has(l.id))} onValue={(on) => toggle(group.locks.map((l) => l.id), on)} />
          </legend>
          {group.locks.map((lock) => <Check key={lock.id} label={lock.name} checked={selected.has(lock.id)} onValue={(on) => toggle([lock.id], on)} />)}
        </fieldset>
      ))}
      <p class="muted" role="status">{selected.size === 0 ? `Choose the doors to ${verb}.` : `${selected.size} door${selected.size === 1 ? '' : 's'} chosen.`}</p>
    </Section>
  );
}

/** Each lock's name, by id, as the caller calls it. */
export function useLockNames(): (lockId: string) => string {
  const locks = useLocks();
  const names = new Map((locks.data ?? []).map((lock) => [lock.id, lock.name]));
  return (lockId) => names.get(lockId) ?? lockId;
}
