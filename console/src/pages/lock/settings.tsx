import { useState } from 'preact/hooks';
import type { DayName, Lock } from '../../api/types';
import { DaysField, localZone } from '../../components/hours';
import { Check, DAY_NAMES, ErrorText, Field, Form, Notice, Section, TimeField } from '../../components/ui';
import { useSignedSettings, useTileLink, useUpdateLock } from '../../hooks/locks';

const DAYS: DayName[] = [...DAY_NAMES];

const list = (text: string) => text.split(/[\s,]+/).map((s) => s.trim()).filter(Boolean);

/** Settings signed in the browser (MUTATE_SETTING): unlock duration, unlock-between window. */
function SignedSettings({ lock }: { lock: Lock }) {
  const window = lock.settings.unlockBetweenWindow;
  const [duration, setDuration] = useState(String(lock.settings.unlockTime));
  const [enabled, setEnabled] = useState(window !== null);
  const [start, setStart] = useState(window?.start ?? '08:00');
  const [end, setEnd] = useState(window?.end ?? '18:00');
  const [timezone, setTimezone] = useState(window?.timezone ?? localZone());
  const [days, setDays] = useState<DayName[]>(window?.days ?? ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY']);
  const [exceptions, setExceptions] = useState((window?.exceptions ?? []).join(', '));
  const [saved, setSaved] = useState('');
  const settings = useSignedSettings(lock.id);
  const { error, isPending: busy } = settings;
  return (
    <Form label="Unlock settings" onSubmit={() => {
      setSaved('');
      settings.mutate(
        { unlockDuration: Number(duration), unlockBetween: enabled ? { start, end, timezone, days, exceptions: list(exceptions) } : null },
        { onSuccess: () => setSaved('Settings sent to the lock.') },
      );
    }}>
      <h2>Unlocking</h2>
      <Field label="Unlock duration (seconds)" type="number" min={1} max={86400} required value={duration} onValue={setDuration} />
      <Check label="Stay unlocked during a weekly window" checked={enabled} onValue={setEnabled} />
      {enabled && (
        <>
          <TimeField label="Window starts" required value={start} onValue={setStart} />
          <TimeField label="Window ends" required value={end} onValue={setEnd} />
          <Field label="Window time zone" required value={timezone} onValue={setTimezone} hint="An IANA name, e.g. Europe/London." />
          <DaysField legend="Window days" days={days} onDays={setDays} />
          <Field label="Exception dates" value={exceptions} onValue={setExceptions} hint="YYYY-MM-DD, separated by commas: days the window does not apply." />
        </>
      )}
      <button type="submit" disabled={busy}>Save unlocking</button>
      {saved && <Notice>{saved}</Notice>}
      <ErrorText error={error} />
    </Form>
  );
}

/** Requirements and addresses (PUT /device/{id}). */
function Requirements({ lock }: { lock: Lock }) {
  const time = lock.settings.usageRequirements.time?.[0];
  const location = lock.settings.usageRequirements.location;
  const [timeOn, setTimeOn] = useState(!!time);
  const [tStart, setTStart] = useState(time?.start ?? '07:00');
  const [tEnd, setTEnd] = useState(time?.end ?? '19:00');
  const [tZone, setTZone] = useState(time?.timezone ?? localZone());
  const [tDays, setTDays] = useState<DayName[]>(time?.days ?? [...DAYS]);
  const [locOn, setLocOn] = useState(!!location && location.enabled !== false);
  const [lat, setLat] = useState(String(location?.latitude ?? ''));
  const [lon, setLon] = useState(String(location?.longitude ?? ''));
  const [radius, setRadius] = useState(String(location?.radius ?? 100));
  const [accuracy, setAccuracy] = useState(String(location?.accuracy ?? 200));
  const [addresses, setAddresses] = useState(lock.settings.permittedAddresses.join(', '));
  const [saved, setSaved] = useState('');
  const update = useUpdateLock(lock.id);
  const { error, isPending: busy } = update;
  return (
    <Form label="Requirements" onSubmit={() => {
      setSaved('');
      const usageRequirements = {
        ...(timeOn ? { time: [{ start: tStart, end: tEnd, timezone: tZone, days: tDays }] } : {}),
        ...(locOn ? { location: { latitude: Number(lat), longitude: Number(lon), radius: Number(radius), accuracy: Number(accuracy), enabled: true } } : {}),
      };
      update.mutate({ settings: { usageRequirements, permittedAddresses: list(addresses) } }, { onSuccess: () => setSaved('Requirements saved.') });
    }}>
      <h2>Requirements</h2>
      <Check label="Only at certain times" checked={timeOn} onValue={setTimeOn} />
      {timeOn && (
        <>
          <TimeField label="Allowed from" required value={tStart} onValue={setTStart} />
          <TimeField label="Allowed until" required value={tEnd} onValue={setTEnd} />
          <Field label="Requirement time zone" required value={tZone} onValue={setTZone} />
          <DaysField legend="Allowed days" days={tDays} onDays={setTDays} />
        </>
      )}
      <Check label="Only near the lock" checked={locOn} onValue={setLocOn} />
      {locOn && (
        <>
          <Field label="Latitude" type="number" step="any" min={-90} max={90} required value={lat} onValue={setLat} />
          <Field label="Longitude" type="number" step="any" min={-180} max={180} required value={lon} onValue={setLon} />
          <Field label="Radius (metres)" type="number" min={1} required value={radius} onValue={setRadius} />
          <Field label="Worst GPS accuracy accepted (metres)" type="number" min={1} required value={accuracy} onValue={setAccuracy} />
        </>
      )}
      <Field label="Permitted addresses" value={addresses} onValue={setAddresses} hint="IP addresses or CIDR ranges, separated by commas; empty allows any." />
      <button type="submit" disabled={busy}>Save requirements</button>
      {saved && <Notice>{saved}</Notice>}
      <ErrorText error={error} />
    </Form>
  );
}

function Tiles({ lock }: { lock: Lock }) {
  const [tile, setTile] = useState('');
  const [saved, setSaved] = useState('');
  const link = useTileLink(lock.id);
  const { error, isPending: busy } = link;
  const linked = lock.settings.tiles ?? [];
  const call = (method: 'put' | 'delete', id: string, message: string) => {
    setSaved('');
    link.mutate({ tileId: id, linked: method === 'put' }, {
      onSuccess: () => {
        setSaved(message);
        setTile('');
      },
    });
  };
  return (
    <Section title="Tiles">
      {linked.length === 0 && <p class="muted">No tile opens this lock.</p>}
      {linked.length > 0 && <ul aria-label="Linked tiles">{linked.map((id) => <li key={id}>{id} <button type="button" class="secondary" onClick={() => call('delete', id, `Tile ${id} unlinked.`)} aria-label={`Unlink tile ${id}`}>Unlink</button></li>)}</ul>}
      <Form label="Link a tile" class="inline-form" onSubmit={() => call('put', tile.trim(), `Tile ${tile.trim()} linked.`)}>
        <Field label="Tile id" required value={tile} onValue={setTile} />
        <button type="submit" disabled={busy}>Link tile</button>
        <button type="button" class="secondary" disabled={busy || !tile.trim()} onClick={() => call('delete', tile.trim(), `Tile ${tile.trim()} unlinked.`)}>Unlink tile</button>
      </Form>
      {saved && <Notice>{saved}</Notice>}
      <ErrorText error={error} />
    </Section>
  );
}

export function LockSettings({ lock }: { lock: Lock }) {
  if (lock.role !== 'ADMIN') return <Section title="Settings"><p>Only the lock's admins change its settings.</p></Section>;
  return (
    <>
      <SignedSettings lock={lock} />
      <Requirements lock={lock} />
      <Tiles lock={lock} />
    </>
  );
}
