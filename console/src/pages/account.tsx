import { useQuery, useQueryClient } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { api, currentUserId, setSession, signOut } from '../api';
import { checkCode, certify, forgetKey, isCertified, loadKey, sendCode } from '../keys';
import { navigate } from '../router';
import type { Account } from '../types';
import { ErrorText, Field, Form, Notice, Section, when } from '../ui';
import { useAction } from './auth';

export function useAccount() {
  return useQuery({ queryKey: ['account'], queryFn: () => api.get<Account>('/account') });
}

/** This browser's key: its state, certification, and the code entry when the service asks for one (423). */
export function KeyPanel() {
  const userId = currentUserId() ?? '';
  const client = useQueryClient();
  const key = useQuery({ queryKey: ['key', userId], queryFn: async () => (await loadKey(userId)) ?? null });
  const [needsCode, setNeedsCode] = useState(false);
  const [sent, setSent] = useState(false);
  const [code, setCode] = useState('');
  const { error, busy, run } = useAction();
  const refresh = () => client.invalidateQueries({ queryKey: ['key', userId] });
  const certified = isCertified(key.data ?? undefined);
  return (
    <Section title="This browser's key">
      {certified ? (
        <Notice>Certified until {when(key.data?.notAfter)}. Unlocks and shares are signed here; the key never leaves this browser.</Notice>
      ) : (
        <p>This browser needs a certified key before it can unlock or share.</p>
      )}
      {!needsCode && (
        <button type="button" disabled={busy} onClick={() => run(async () => {
          const outcome = await certify(userId);
          if (outcome === 'needs-code') setNeedsCode(true);
          await refresh();
        })}>{certified ? 'Renew certificate' : 'Certify this browser'}</button>
      )}
      {needsCode && (
        <Form label="Check with a code" class="inline-form" onSubmit={() => run(async () => { await checkCode(userId, code); setNeedsCode(false); setCode(''); await refresh(); })}>
          <p>The service wants to confirm it is you: have a code sent, then enter it.</p>
          <button type="button" class="secondary" disabled={busy} onClick={() => run(async () => { await sendCode(userId, 'EMAIL'); setSent(true); })}>Email me a code</button>
          {sent && <Notice>A code is on its way to your email.</Notice>}
          <Field label="Code" inputMode="numeric" autoComplete="one-time-code" required value={code} onValue={setCode} />
          <button type="submit" disabled={busy}>Check code</button>
        </Form>
      )}
      <ErrorText error={error} />
    </Section>
  );
}

export function AccountPage() {
  const account = useAccount();
  const client = useQueryClient();
  const [name, setName] = useState<string | null>(null);
  const [oldPassword, setOld] = useState('');
  const [newPassword, setNew] = useState('');
  const [message, setMessage] = useState('');
  const [confirmDelete, setConfirmDelete] = useState('');
  const profile = useAction();
  const password = useAction();
  const verify = useAction();
  const remove = useAction();
  const userId = currentUserId() ?? '';
  return (
    <main>
      <h1>Account</h1>
      <ErrorText error={account.error} />
      {account.data && (
        <Section title="Profile">
          <p>Email: <strong>{account.data.email}</strong> {account.data.emailVerified ? <span class="badge ok">verified</span> : <span class="badge warn">not verified</span>}</p>
          {!account.data.emailVerified && (
            <button type="button" class="secondary" disabled={verify.busy} onClick={() => verify.run(async () => { await api.post('/account/email/reverify'); setMessage('A new verification email is on its way.'); })}>Send the verification email again</button>
          )}
          <ErrorText error={verify.error} />
          <Form label="Change display name" class="inline-form" onSubmit={() => profile.run(async () => { await api.post('/account', { displayName: name ?? '' }); await client.invalidateQueries({ queryKey: ['account'] }); setMessage('Display name saved.'); })}>
            <Field label="Display name" autoComplete="name" required value={name ?? account.data.displayName ?? ''} onValue={setName} />
            <button type="submit" disabled={profile.busy}>Save name</button>
          </Form>
          <ErrorText error={profile.error} />
        </Section>
      )}
      {message && <Notice>{message}</Notice>}
      <KeyPanel />
      <Section title="Password">
        <Form label="Change password" class="inline-form" onSubmit={() => password.run(async () => { await api.post('/account/password', { oldPassword, newPassword }); setOld(''); setNew(''); setMessage('Password changed.'); })}>
          <Field label="Current password" type="password" autoComplete="current-password" required value={oldPassword} onValue={setOld} />
          <Field label="New password" type="password" autoComplete="new-password" required minLength={8} value={newPassword} onValue={setNew} />
          <button type="submit" disabled={password.busy}>Change password</button>
        </Form>
        <ErrorText error={password.error} />
      </Section>
      <Section title="Sign out or delete">
        <button type="button" class="secondary" onClick={() => void signOut().then(() => navigate('/signin'))}>Sign out</button>
        <Form label="Delete account" class="inline-form danger-zone" onSubmit={() => remove.run(async () => {
          await api.delete('/account');
          await forgetKey(userId);
          setSession(null);
          navigate('/signin?deleted=1');
        })}>
          <p>Deleting your account removes your access to every lock. Type DELETE to confirm.</p>
          <Field label="Type DELETE to confirm" required pattern="DELETE" value={confirmDelete} onValue={setConfirmDelete} />
          <button type="submit" class="danger" disabled={remove.busy || confirmDelete !== 'DELETE'}>Delete my account</button>
        </Form>
        <ErrorText error={remove.error} />
      </Section>
    </main>
  );
}
