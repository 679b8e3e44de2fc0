import { useState } from 'preact/hooks';
import type { Lock, Site } from '../api/types';
import { Check, ErrorText, Field, Form, Notice, Section } from '../components/ui';
import { useLocks, useOwnSites, useSiteChanges, useSiteOfLock } from '../hooks/locks';
import { together } from '../hooks/mutations';

/** One site of the caller's: its name, and which of the doors they administer are in it. */
function OwnSite({ site, doors, siteOf }: { site: Site; doors: Lock[]; siteOf: (lockId: string) => string | undefined }) {
  const { rename, place } = useSiteChanges();
  const [name, setName] = useState(site.name);
  const [saved, setSaved] = useState('');
  // A box shows its new state at once, and goes back if the service refuses it.
  const [shown, setShown] = useState<ReadonlyMap<string, boolean>>(new Map());
  const show = (lockId: string, inSite: boolean | undefined) => setShown((current) => {
    const next = new Map(current);
    if (inSite === undefined) next.delete(lockId);
    else next.set(lockId, inSite);
    return next;
  });
  const { error, busy } = together(rename, place);
  return (
    <Section title={site.name}>
      <Form label={`Rename ${site.name}`} class="inline-form" onSubmit={() => {
        setSaved('');
        rename.mutate({ siteId: site.id, name: name.trim() }, { onSuccess: () => setSaved('Site renamed.') });
      }}>
        <Field label="Site name" required maxLength={255} value={name} onValue={setName} />
        <button type="submit" disabled={busy}>Rename</button>
      </Form>
      <fieldset class="door-group">
        <legend>Doors in {site.name}</legend>
        {doors.map((lock) => (
          <Check key={lock.id} label={lock.name} checked={shown.get(lock.id) ?? siteOf(lock.id) === site.id} onValue={(inSite) => {
            setSaved('');
            show(lock.id, inSite);
            place.mutate({ siteId: site.id, lockId: lock.id, inSite }, {
              onSuccess: () => setSaved(inSite ? `${lock.name} is in ${site.name}.` : `${lock.name} left ${site.name}.`),
              onError: () => show(lock.id, undefined),
            });
          }} />
        ))}
      </fieldset>
      {saved && <Notice>{saved}</Notice>}
      <ErrorText error={error} />
    </Section>
  );
}

/** Sites made here: create one, rename it, put the doors you administer in it. */
export function SitesPage() {
  const own = useOwnSites();
  const locks = useLocks();
  const sites = useSiteOfLock();
  const { create } = useSiteChanges();
  const [name, setName] = useState('');
  const doors = (locks.data ?? []).filter((lock) => lock.role === 'ADMIN');
  return (
    <main>
      <h1>Sites</h1>
      <ErrorText error={own.error} />
      <Form label="Make a site" class="card" onSubmit={() => create.mutate(name.trim(), { onSuccess: () => setName('') })}>
        <h2>Make a site</h2>
        <Field label="New site name" required maxLength={255} value={name} onValue={setName} hint="A building or an area: its doors can then be shared together." />
        <button type="submit" disabled={create.isPending}>Make site</button>
        <ErrorText error={create.error} />
      </Form>
      {(own.data ?? []).map((site) => <OwnSite key={site.id} site={site} doors={doors} siteOf={(id) => sites.data?.get(id)?.id} />)}
      {own.isSuccess && own.data.length === 0 && <p>You have made no site yet.</p>}
    </main>
  );
}
