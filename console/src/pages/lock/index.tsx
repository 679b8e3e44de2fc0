import { useState } from 'preact/hooks';
import type { Lock, LockChanges } from '../../api/types';
import { AlarmBanner } from '../../components/alarms';
import { YourHours } from '../../components/hours';
import { LockButtons, StateBadges } from '../../components/lock-state';
import { Check, ErrorText, Field, Form, Link, Notice, Section } from '../../components/ui';
import { useLock, useUpdateLock } from '../../hooks/locks';
import { LockAudit } from './audit';
import { Members } from './members';
import { LockSettings } from './settings';

function Appearance({ lock }: { lock: Lock }) {
  const [name, setName] = useState(lock.name);
  const [colour, setColour] = useState(lock.colour ?? '#1f4e79');
  const [saved, setSaved] = useState('');
  const [favourite, setFavourite] = useState(lock.favourite);
  const [hidden, setHidden] = useState(!!lock.settings.hidden);
  const update = useUpdateLock(lock.id);
  const save = (changes: LockChanges, message: string, undo?: () => void) => {
    setSaved('');
    update.mutate(changes, { onSuccess: () => setSaved(message), onError: () => undo?.() });
  };
  /** A checkbox shows its new state at once, and goes back if the service refuses it. */
  const toggle = (set: (on: boolean) => void, on: boolean, changes: LockChanges, message: string) => {
    set(on);
    save(changes, message, () => set(!on));
  };
  return (
    <Section title="Name and appearance">
      <Form label="Your name for this lock" class="inline-form" onSubmit={() => save({ name, colour }, 'Saved. Only you see this name and colour.')}>
        <Field label="Your name for this lock" required maxLength={100} value={name} onValue={setName} hint="Only you see it: other members keep their own names for this lock." />
        <Field label="Colour" type="color" value={colour} onValue={setColour} />
        <button type="submit" disabled={update.isPending}>Save</button>
      </Form>
      <Check label="Favourite" checked={favourite} onValue={(on) => toggle(setFavourite, on, { favourite: on }, on ? 'Added to favourites.' : 'Removed from favourites.')} />
      <Check label="Hide from my list" checked={hidden} onValue={(on) => toggle(setHidden, on, { settings: { hidden: on } }, on ? 'Hidden from your list.' : 'Shown in your list.')} />
      {saved && <Notice>{saved}</Notice>}
      <ErrorText error={update.error} />
    </Section>
  );
}

/** The lock's sections: a USER has only their own access to see, so the admins' tabs are not shown to them. */
const ADMIN_TABS = [['', 'Overview'], ['members', 'Members'], ['codes', 'Keypad codes'], ['alarms', 'Alarms'], ['settings', 'Settings'], ['audit', 'Audit']] as const;
const USER_TABS = [['', 'Overview'], ['members', 'Your access']] as const;

export function LockPage({ id, tab }: { id: string; tab: string }) {
  const lock = useLock(id);
  if (lock.error) return <main><h1>Lock</h1><ErrorText error={lock.error} /><p><Link to="/">Back to your locks</Link></p></main>;
  if (!lock.data) return <main><p role="status">Loading…</p></main>;
  const data = lock.data;
  const tabs: ReadonlyArray<readonly [string, string]> = data.role === 'ADMIN' ? ADMIN_TABS : USER_TABS;
  // An admin's tab opened by a USER (an old link) shows the overview.
  const shown = tabs.some(([slug]) => slug === tab) ? tab : '';
  return (
    <main>
      <p><Link to="/">← Locks</Link></p>
      <h1>{data.name}</h1>
      <StateBadges lock={data} />
      <AlarmBanner lock={data} />
      <nav class="tabs" aria-label="Lock sections">
        {tabs.map(([slug, title]) => (
          <Link key={slug} to={`/locks/${id}${slug ? `/${slug}` : ''}`} class={shown === slug ? 'tab current' : 'tab'}>{title}</Link>
        ))}
      </nav>
      {shown === '' && (
        <>
          <Section title="Operate"><YourHours schedule={data.schedule} /><LockButtons lock={data} /></Section>
          <Appearance lock={data} />
        </>
      )}
      {shown === 'members' && <Members lock={data} />}
      {shown === 'settings' && <LockSettings lock={data} />}
      {shown === 'audit' && <LockAudit lock={data} />}
    </main>
  );
}
