import { useState } from 'preact/hooks';
import { isCertified } from '../api/browser-key';
import { useBrowserKey, useKeyCertification } from '../hooks/account';
import { together } from '../hooks/mutations';
import { ErrorText, Field, Form, Notice, Section, when } from './ui';

/** This browser's key: its state, certification, and the code entry when the service asks for one (423). */
export function KeyPanel() {
  const key = useBrowserKey();
  const { certify, sendCode, checkCode } = useKeyCertification();
  const [needsCode, setNeedsCode] = useState(false);
  const [sent, setSent] = useState(false);
  const [code, setCode] = useState('');
  const { error, busy } = together(certify, sendCode, checkCode);
  const certified = isCertified(key.data ?? undefined);
  return (
    <Section title="This browser's key">
      {certified ? (
        <Notice>Certified until {when(key.data?.notAfter)}. Unlocks and shares are signed here; the key never leaves this browser.</Notice>
      ) : (
        <p>This browser needs a certified key before it can unlock or share.</p>
      )}
      {!needsCode && (
        <button type="button" disabled={busy} onClick={() => certify.mutate(undefined, { onSuccess: (outcome) => { if (outcome === 'needs-code') setNeedsCode(true); } })}>
          {certified ? 'Renew certificate' : 'Certify this browser'}
        </button>
      )}
      {needsCode && (
        <Form label="Check with a code" class="inline-form" onSubmit={() => checkCode.mutate(code, { onSuccess: () => { setNeedsCode(false); setCode(''); } })}>
          <p>The service wants to confirm it is you: have a code sent, then enter it.</p>
          <button type="button" class="secondary" disabled={busy} onClick={() => sendCode.mutate(undefined, { onSuccess: () => setSent(true) })}>Email me a code</button>
          {sent && <Notice>A code is on its way to your email.</Notice>}
          <Field label="Code" inputMode="numeric" autoComplete="one-time-code" required value={code} onValue={setCode} />
          <button type="submit" disabled={busy}>Check code</button>
        </Form>
      )}
      <ErrorText error={error} />
    </Section>
  );
}
