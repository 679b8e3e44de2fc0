import { useState } from 'preact/hooks';
import type { Alarm, AlarmKind, AlarmSettings } from '../../api/types';
import { Check, ErrorText, Field, Form, Notice, when } from '../../components/ui';
import { useAlarmSettings, useSaveAlarmSettings } from '../../hooks/lockdowns';

/** Each alarm kind in words (src/alarms/kinds.ts). */
const ALARM_WORDS: Record<AlarmKind, string> = {
  jammed: 'Lock jammed',
  tampered: 'Lock tampered with',
  battery_low: 'Battery low',
  battery_critical: 'Battery critical',
  held_open: 'Door held open',
  forced_open: 'Door forced open',
  offline: 'Lock offline',
  refused_unlocks: 'Repeated refused unlocks',
  keypad_locked_out: 'Keypad locked out',
};

/** Alarms in a table: the door (when several), what, raised, cleared. */
export function AlarmTable({ alarms, caption, nameOf }: { alarms: Array<Alarm | Omit<Alarm, 'lockId'>>; caption: string; nameOf?: (lockId: string) => string }) {
  if (alarms.length === 0) return <p>{caption}: none.</p>;
  return (
    <div class="table-wrap">
      <table>
        <caption>{caption}</caption>
        <thead><tr>{nameOf && <th scope="col">Door</th>}<th scope="col">Alarm</th><th scope="col">Raised</th><th scope="col">Cleared</th></tr></thead>
        <tbody>
          {alarms.map((alarm) => (
            <tr key={alarm.id} data-alarm={alarm.kind}>
              {nameOf && <td>{'lockId' in alarm ? nameOf(alarm.lockId) : ''}</td>}
              <td>{ALARM_WORDS[alarm.kind] ?? alarm.kind}</td>
              <td>{when(alarm.raisedAt)}</td>
              <td>{alarm.clearedAt === null ? 'open' : when(alarm.clearedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const THRESHOLDS = [
  ['heldOpenSeconds', 'Door held open after (seconds)', 5, 86_400],
  ['offlineSeconds', 'Offline after (seconds)', 60, 604_800],
  ['refusedUnlocks', 'Refused unlocks that raise an alarm', 2, 1000],
  ['refusedWindowSeconds', 'Within (seconds)', 10, 86_400],
] as const;

function SettingsForm({ lockId, settings }: { lockId: string; settings: AlarmSettings }) {
  const [values, setValues] = useState<Record<string, string>>(Object.fromEntries(THRESHOLDS.map(([key]) => [key, String(settings[key])])));
  const [mail, setMail] = useState(settings.mail);
  const [saved, setSaved] = useState('');
  const save = useSaveAlarmSettings(lockId);
  return (
    <Form label="Alarm settings" onSubmit={() => {
      setSaved('');
      const thresholds = Object.fromEntries(THRESHOLDS.map(([key]) => [key, Number(values[key])]));
      save.mutate({ ...thresholds, mail }, { onSuccess: () => setSaved('Alarm settings saved.') });
    }}>
      <h2>Alarm settings</h2>
      {THRESHOLDS.map(([key, label, min, max]) => (
        <Field key={key} label={label} type="number" min={min} max={max} required value={values[key]!} onValue={(value) => setValues({ ...values, [key]: value })} />
      ))}
      <fieldset class="door-group">
        <legend>Email the administrators when</legend>
        {(Object.keys(mail) as AlarmKind[]).map((kind) => (
          <Check key={kind} label={ALARM_WORDS[kind] ?? kind} checked={mail[kind]} onValue={(on) => setMail({ ...mail, [kind]: on })} />
        ))}
      </fieldset>
      <button type="submit" disabled={save.isPending}>Save alarm settings</button>
      {saved && <Notice>{saved}</Notice>}
      <ErrorText error={save.error} />
    </Form>
  );
}

/** A lock's thresholds and, per kind, whether its administrators are emailed. */
export function AlarmSettingsSection({ lockId }: { lockId: string }) {
  const settings = useAlarmSettings(lockId);
  if (settings.error) return <ErrorText error={settings.error} />;
  if (!settings.data) return <p role="status">Loading alarm settings…</p>;
  return <SettingsForm lockId={lockId} settings={settings.data} />;
}
