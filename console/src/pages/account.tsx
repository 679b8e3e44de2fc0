import { useState } from 'preact/hooks';
import { KeyPanel } from '../components/key-panel';
import { ErrorText, Field, Form, Notice, Section } from '../components/ui';
import { useAccount, useChangePassword, useDeleteAccount, useResendVerification, useSignOut, useUpdateDisplayName } from '../hooks/account';

export function AccountPage() {
  const account = useAccount();
  const [name, setName] = useState<string | null>(null);
  const [oldPassword, setOld] = useState('');
  const [newPassword, setNew] = useState('');
  const [message, setMessage] = useState('');
  const [confirmDelete, setConfirmDelete] = useState('');
  const profile = useUpdateDisplayName();
  const password = useChangePassword();
  const verify = useResendVerification();
  const remove = useDeleteAccount();
  const signOut = useSignOut();
  /** Each action starts without the notice of the one before: a success never sits beside a new error. */
  const act = (run: () => void) => () => {
    setMessage('');
    run();
  };
  return (
    <main>
      <h1>Account</h1>
      <ErrorText error={account.error} />
      {account.data && (
        <Section title="Profile">
          <p>Email: <strong>{account.data.email}</strong> {account.data.emailVerified ? <span class="badge ok">verified</span> : <span class="badge warn">not verified</span>}</p>
          {!account.data.emailVerified && (
            <button type="button" class="secondary" disabled={verify.isPending} onClick={act(() => verify.mutate(undefined, { onSuccess: () => setMessage('A new verification email is on its way.') }))}>Send the verification email again</button>
          )}
          <ErrorText error={verify.error} />
          <Form label="Change display name" class="inline-form" onSubmit={act(() => profile.mutate(name ?? '', { onSuccess: () => setMessage('Display name saved.') }))}>
            <Field label="Display name" autoComplete="name" required value={name ?? account.data.displayName ?? ''} onValue={setName} />
            <button type="submit" disabled={profile.isPending}>Save name</button>
          </Form>
          <ErrorText error={profile.error} />
        </Section>
      )}
      {message && <Notice>{message}</Notice>}
      <KeyPanel />
      <Section title="Password">
        <Form label="Change password" class="inline-form" onSubmit={act(() => password.mutate({ oldPassword, newPassword }, {
          onSuccess: () => {
            setOld('');
            setNew('');
            setMessage('Password changed.');
          },
        }))}>
          <Field label="Current password" type="password" autoComplete="current-password" required value={oldPassword} onValue={setOld} />
          <Field label="New password" type="password" autoComplete="new-password" required minLength={8} value={newPassword} onValue={setNew} />
          <button type="submit" disabled={password.isPending}>Change password</button>
        </Form>
        <ErrorText error={password.error} />
      </Section>
      <Section title="Sign out or delete">
        <button type="button" class="secondary" onClick={() => signOut.mutate()}>Sign out</button>
        <Form label="Delete account" class="inline-form danger-zone" onSubmit={() => remove.mutate()}>
          <p>Deleting your account removes your access to every lock. Type DELETE to confirm.</p>
          <Field label="Type DELETE to confirm" required pattern="DELETE" value={confirmDelete} onValue={setConfirmDelete} />
          <button type="submit" class="danger" disabled={remove.isPending || confirmDelete !== 'DELETE'}>Delete my account</button>
        </Form>
        <ErrorText error={remove.error} />
      </Section>
    </main>
  );
}
