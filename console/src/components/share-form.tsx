import { useState } from 'preact/hooks';
import type { Role } from '../api/types';
import { useShareToLocks } from '../hooks/locks';
import { HoursFields, OFFICE_HOURS } from './hours';
import { Check, ErrorText, Field, Form, Notice, Select, fromLocalInput } from './ui';

/**
 * Shares one or several doors with one person: role, start and end, and their own weekly hours.
 * Each door receives its own signed ADD_USER. After a share the form starts clean, so the next
 * person never inherits this one's role, window or hours.
 */
export function ShareForm({ lockIds, nameOf, title = 'Share' }: { lockIds: readonly string[]; nameOf?: (lockId: string) => string; title?: string }) {
  const share = useShareToLocks(lockIds, nameOf);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('USER');
  const [start, setStart] = useState('');
  const [end, setEnd] = useState('');
  const [limited, setLimited] = useState(false);
  const [hours, setHours] = useState(OFFICE_HOURS);
  const [shared, setShared] = useState('');
  const submit = () => {
    setShared('');
    const request = { email: email.trim(), role, start: fromLocalInput(start), end: fromLocalInput(end), ...(limited ? { schedule: [hours] } : {}) };
    share.mutate(request, {
      onSuccess: () => {
        setShared(lockIds.length === 1 ? `Shared with ${request.email}.` : `Shared with ${request.email} on ${lockIds.length} doors.`);
        setEmail('');
        setRole('USER');
        setStart('');
        setEnd('');
        setLimited(false);
        setHours(OFFICE_HOURS());
      },
    });
  };
  return (
    <Form label="Share this lock" class="inline-form" onSubmit={submit}>
      <h3>{title}</h3>
      <Field label="Email of the person to share with" type="email" required value={email} onValue={setEmail} hint="Someone without an account is invited by email." />
      <Select label="Role" value={role} options={[['USER', 'User'], ['ADMIN', 'Admin']]} onValue={setRole} />
      <Field label="Starts (optional)" type="datetime-local" value={start} onValue={setStart} />
      <Field label="Ends (optional)" type="datetime-local" value={end} onValue={setEnd} />
      <Check label="Only at certain hours each week" checked={limited} onValue={setLimited} />
      {limited && <HoursFields hours={hours} onHours={setHours} />}
      <button type="submit" disabled={share.isPending || lockIds.length === 0}>Share</button>
      {shared && <Notice>{shared}</Notice>}
      <ErrorText error={share.error} />
    </Form>
  );
}
