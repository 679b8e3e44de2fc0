import { useState } from 'preact/hooks';
import type { KeypadCode } from '../../api/types';
import { ErrorText, Field, Form, Notice } from '../../components/ui';
import { useSendCode } from '../../hooks/codes';

/**
 * A code just created: its digits shown this once (generated) or recalled (typed), and "send to
 * the holder" while this browser still holds them. "Done" forgets them: the service never shows
 * them again.
 */
export function CreatedCode({ code, digits, generated, nameOf, onDone }: { code: KeypadCode; digits: string; generated: boolean; nameOf: (lockId: string) => string; onDone: () => void }) {
  const send = useSendCode(code.id);
  const [email, setEmail] = useState('');
  const guest = code.holder.kind === 'guest';
  const who = code.holder.name ?? 'the holder';
  return (
    <section class="card created-code" aria-label="Code created">
      <h2>Code created for {who}</h2>
      <p>On {code.locks.map((l) => nameOf(l.lockId)).join(', ')}.</p>
      {generated ? (
        <>
          <p>The code, <strong>shown this once</strong>:</p>
          <p class="secret" data-testid="new-code">{digits}</p>
          <p class="muted">Write it down or send it now: nobody can read it again, not even you.</p>
        </>
      ) : <p class="muted">The code you typed is kept sealed: nobody can read it again.</p>}
      {send.isSuccess ? <Notice>{guest ? `Sent to ${email.trim()} if a Latchkey account verified that address; if the guest has none, hand the code over yourself.` : `Sent to ${who}.`}</Notice> : (
        <Form label="Send to the holder" class="inline-form" onSubmit={() => send.mutate({ digits, ...(guest ? { email: email.trim() } : {}) })}>
          {guest && <Field label="Guest's email" type="email" required value={email} onValue={setEmail} hint="Only an address verified with a Latchkey account: otherwise hand the code over yourself." />}
          <button type="submit" disabled={send.isPending}>Send to the holder</button>
        </Form>
      )}
      <ErrorText error={send.error} />
      <button type="button" class="secondary" onClick={onDone}>Done</button>
    </section>
  );
}
