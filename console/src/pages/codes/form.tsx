import { useState } from 'preact/hooks';
import type { Hours } from '../../api/types';
import { HoursFields, OFFICE_HOURS } from '../../components/hours';
import { Check, ErrorText, Field, Form, Select, fromLocalInput, toLocalInput } from '../../components/ui';
import { useCreateCode, type CodeTerms, type NewCodeRequest } from '../../hooks/codes';
import { memberName, useCommonMembers } from '../../hooks/members';
import { CreatedCode } from './created';

type Uses = 'unlimited' | 'once' | 'count';

/** The terms' fields: window, weekly hours (the share form's), and how many uses. */
export function TermsFields({ terms, onTerms }: { terms: CodeTerms; onTerms: (terms: CodeTerms) => void }) {
  const [limited, setLimited] = useState(terms.schedule !== null);
  const [hours, setHours] = useState<Hours>(terms.schedule?.[0] ?? OFFICE_HOURS());
  const uses: Uses = terms.maxUses === null ? 'unlimited' : terms.maxUses === 1 ? 'once' : 'count';
  const setUses = (next: Uses) => onTerms({ ...terms, maxUses: next === 'unlimited' ? null : next === 'once' ? 1 : Math.max(2, terms.maxUses ?? 5) });
  return (
    <>
      <Field label="Works from (optional)" type="datetime-local" value={toLocalInput(terms.start)} onValue={(v) => onTerms({ ...terms, start: fromLocalInput(v) })} />
      <Field label="Works until (optional)" type="datetime-local" value={toLocalInput(terms.end)} onValue={(v) => onTerms({ ...terms, end: fromLocalInput(v) })} />
      <Check label="Only at certain hours each week" checked={limited} onValue={(on) => { setLimited(on); onTerms({ ...terms, schedule: on ? [hours] : null }); }} />
      {limited && <HoursFields hours={hours} onHours={(next) => { setHours(next); onTerms({ ...terms, schedule: [next] }); }} />}
      <Select label="Uses" value={uses} options={[['unlimited', 'Unlimited'], ['once', 'One-time (opens once)'], ['count', 'A number of times']]} onValue={setUses} />
      {uses === 'count' && (
        <Field label="Number of uses" type="number" min={2} max={10000} required value={String(terms.maxUses ?? '')} onValue={(v) => onTerms({ ...terms, maxUses: Number(v) || 2 })} hint="Across every door of the code." />
      )}
    </>
  );
}

const NO_TERMS: CodeTerms = { start: null, end: null, schedule: null, maxUses: null };

/** A new code on every door of `lockIds`, for a member of them all or a named guest; typed or generated. */
export function NewCodeForm({ lockIds, nameOf }: { lockIds: readonly string[]; nameOf: (lockId: string) => string }) {
  const create = useCreateCode(lockIds);
  const members = useCommonMembers(lockIds);
  const [kind, setKind] = useState<'member' | 'guest'>('guest');
  const [member, setMember] = useState('');
  const [guest, setGuest] = useState('');
  const [typed, setTyped] = useState(false);
  const [digits, setDigits] = useState('');
  const [length, setLength] = useState('6');
  const [terms, setTerms] = useState<CodeTerms>(NO_TERMS);
  const [formKey, setFormKey] = useState(0);
  const submit = () => {
    const holderId = member || members[0]?.userId || '';
    const request: NewCodeRequest = {
      holder: kind === 'member' ? { user: holderId } : { guest: guest.trim() },
      terms,
      digits: typed ? { typed: digits } : { length: Number(length) },
    };
    create.mutate(request, {
      onSuccess: () => {
        // The next code starts clean: it never inherits this one's holder, digits or terms.
        setGuest('');
        setDigits('');
        setTerms(NO_TERMS);
        setFormKey((n) => n + 1);
      },
    });
  };
  const created = create.data;
  return (
    <>
      {created && <CreatedCode key={created.code.id} code={created.code} digits={created.digits} generated={created.generated} nameOf={nameOf} onDone={() => create.reset()} />}
      <Form label="New keypad code" class="card" onSubmit={submit}>
        <h2>New code</h2>
        <Select label="Holder" value={kind} options={[['guest', 'A named guest'], ['member', 'A member of the door']]} onValue={setKind} />
        {kind === 'guest' && <Field label="Guest's name" required maxLength={80} value={guest} onValue={setGuest} hint="Shown to the door's administrators and in its audit trail." />}
        {kind === 'member' && (members.length === 0
          ? <p class="muted">{lockIds.length > 1 ? 'No one is a member of every chosen door.' : 'This door has no other member yet.'}</p>
          : <Select label="Member" value={member || members[0]!.userId} options={members.map((m) => [m.userId, memberName(m)])} onValue={setMember} />)}
        <Check label="Type the code myself" checked={typed} onValue={setTyped} />
        {typed
          ? <Field label="Code" inputMode="numeric" autoComplete="off" pattern="[0-9]{4,8}" minLength={4} maxLength={8} required value={digits} onValue={setDigits} hint="4 to 8 digits; not one digit repeated nor a run such as 1234." />
          : <Select label="Digits" value={length} options={['4', '5', '6', '7', '8'].map((n) => [n, `${n} digits, generated`])} onValue={setLength} />}
        <TermsFields key={formKey} terms={terms} onTerms={setTerms} />
        <button type="submit" disabled={create.isPending || lockIds.length === 0 || (kind === 'member' && members.length === 0)}>Create code</button>
        <ErrorText error={create.error} />
      </Form>
    </>
  );
}
