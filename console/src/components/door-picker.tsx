import { useAdministeredBySite } from '../hooks/locks';
import { Check, ErrorText, Section } from './ui';

/**
 * The doors the caller administers, grouped by site, to choose several or a whole site at once
 * (sharing, keypad codes): `selected` is the caller's, `onSelected` gets the new set.
 */
export function DoorPicker({ selected, onSelected, verb }: { selected: ReadonlySet<string>; onSelected: (next: ReadonlySet<string>) => void; verb: string }) {
  const { groups, error, loaded } = useAdministeredBySite();
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
      <ErrorText error={error} />
      {groups.length === 0 && loaded && <p>You administer no door yet.</p>}
      {groups.map((group) => (
        <fieldset key={group.site?.id ?? ''} class="door-group">
          <legend>
            <Check label={group.site ? `All of ${group.site.name}` : 'Doors without a site'} checked={group.locks.every((l) => selected.has(l.id))} onValue={(on) => toggle(group.locks.map((l) => l.id), on)} />
          </legend>
          {group.locks.map((lock) => <Check key={lock.id} label={lock.name} checked={selected.has(lock.id)} onValue={(on) => toggle([lock.id], on)} />)}
        </fieldset>
      ))}
      <p class="muted" role="status">{selected.size === 0 ? `Choose the doors to ${verb}.` : `${selected.size} door${selected.size === 1 ? '' : 's'} chosen.`}</p>
    </Section>
  );
}
