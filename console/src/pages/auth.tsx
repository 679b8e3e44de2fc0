import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, register, signIn } from '../api';
import { navigate } from '../router';
import { ErrorText, Field, Form, Link, Notice } from '../ui';

/** Where to go after signing in: the page the user was on (kept in ?next=), else the locks. */
function nextPage(search: URLSearchParams): string {
  const next = search.get('next');
  return next && next.startsWith('/') && !next.startsWith('//') ? next : '/';
}

function useAction() {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return { error, busy, run };
}

export function SignIn({ search }: { search: URLSearchParams }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { error, busy, run } = useAction();
  return (
    <main class="narrow">
      <h1>Sign in</h1>
      {search.get('deleted') && <Notice>Your account is deleted. You no longer have access to any lock.</Notice>}
      <Form label="Sign in" onSubmit={() => run(async () => { await signIn(email, password); navigate(nextPage(search), true); })}>
        <Field label="Email" type="email" autoComplete="username" required value={email} onValue={setEmail} />
        <Field label="Password" type="password" autoComplete="current-password" required value={password} onValue={setPassword} />
        <ErrorText error={error} />
        <button type="submit" disabled={busy}>Sign in</button>
      </Form>
      <p><Link to="/register">Create an account</Link> · <Link to="/reset">Forgot your password?</Link></p>
    </main>
  );
}

export function Register() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [displayName, setDisplayName] = useState('');
  const { error, busy, run } = useAction();
  return (
    <main class="narrow">
      <h1>Create an account</h1>
      <Form label="Create an account" onSubmit={() => run(async () => { await register(email, password, displayName); navigate('/?welcome=1', true); })}>
        <Field label="Email" type="email" autoComplete="email" required value={email} onValue={setEmail} />
        <Field label="Display name (optional)" autoComplete="name" value={displayName} onValue={setDisplayName} />
        <Field label="Password" type="password" autoComplete="new-password" required minLength={8} value={password} onValue={setPassword} hint="At least 8 characters." />
        <ErrorText error={error} />
        <button type="submit" disabled={busy}>Create account</button>
      </Form>
      <p>Already registered? <Link to="/signin">Sign in</Link></p>
    </main>
  );
}

/**
 * The emailed verification link lands here: it verifies through PUT /account/email/verify, with
 * the session's token when signed in. An account with invitations waiting must be signed in (403):
 * sign in, then come back here.
 */
export function VerifyEmail({ search }: { search: URLSearchParams }) {
  const code = search.get('code') ?? '';
  const [state, setState] = useState<'working' | 'done' | unknown>('working');
  useEffect(() => {
    api.put(`/account/email/verify?code=${encodeURIComponent(code)}`).then(
      () => setState('done'),
      (err: unknown) => {
        if (err instanceof ApiError && err.status === 403) navigate(`/signin?next=${encodeURIComponent(`/verify?code=${encodeURIComponent(code)}`)}`, true);
        else setState(err);
      },
    );
  }, [code]);
  return (
    <main class="narrow">
      <h1>Email verification</h1>
      {state === 'working' && <Notice>Verifying…</Notice>}
      {state === 'done' && <Notice>Your email address is verified.</Notice>}
      {state !== 'working' && state !== 'done' && <ErrorText error={state} />}
      <p><Link to="/">Go to your locks</Link></p>
    </main>
  );
}

/** Password reset: ask for a link by email, or (with ?userId&token from that link) choose a new password. */
export function ResetPassword({ search }: { search: URLSearchParams }) {
  const userId = search.get('userId');
  const token = search.get('token');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);
  const { error, busy, run } = useAction();
  if (userId && token) {
    return (
      <main class="narrow">
        <h1>Choose a new password</h1>
        {done ? <Notice>Your password is changed. <Link to="/signin">Sign in</Link></Notice> : (
          <Form label="Choose a new password" onSubmit={() => run(async () => { await api.post('/account/password/reset/verify', { userId, token, password }, { auth: false }); setDone(true); })}>
            <Field label="New password" type="password" autoComplete="new-password" required minLength={8} value={password} onValue={setPassword} />
            <ErrorText error={error} />
            <button type="submit" disabled={busy}>Set password</button>
          </Form>
        )}
      </main>
    );
  }
  return (
    <main class="narrow">
      <h1>Reset your password</h1>
      {done ? <Notice>If an account has this email, a reset link is on its way.</Notice> : (
        <Form label="Reset your password" onSubmit={() => run(async () => { await api.post('/account/password/reset/initialize', { email }, { auth: false }); setDone(true); })}>
          <Field label="Email" type="email" autoComplete="email" required value={email} onValue={setEmail} />
          <ErrorText error={error} />
          <button type="submit" disabled={busy}>Send reset link</button>
        </Form>
      )}
      <p><Link to="/signin">Back to sign in</Link></p>
    </main>
  );
}

export { useAction };
