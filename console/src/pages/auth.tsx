import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api/client';
import { ErrorText, Field, Form, Link, Notice } from '../components/ui';
import { useRegister, useRequestPasswordReset, useResetPassword, useSignIn, useVerifyEmail } from '../hooks/account';
import { navigate } from '../hooks/router';

/** Where to go after signing in: the page the user was on (kept in ?next=), else the locks. */
function nextPage(search: URLSearchParams): string {
  const next = search.get('next');
  return next && next.startsWith('/') && !next.startsWith('//') ? next : '/';
}

export function SignIn({ search }: { search: URLSearchParams }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const signIn = useSignIn();
  return (
    <main class="narrow">
      <h1>Sign in</h1>
      {search.get('deleted') && <Notice>Your account is deleted. You no longer have access to any lock.</Notice>}
      <Form label="Sign in" onSubmit={() => signIn.mutate({ email, password }, { onSuccess: () => navigate(nextPage(search), true) })}>
        <Field label="Email" type="email" autoComplete="username" required value={email} onValue={setEmail} />
        <Field label="Password" type="password" autoComplete="current-password" required value={password} onValue={setPassword} />
        <ErrorText error={signIn.error} />
        <button type="submit" disabled={signIn.isPending}>Sign in</button>
      </Form>
      <p><Link to="/register">Create an account</Link> · <Link to="/reset">Forgot your password?</Link></p>
    </main>
  );
}

/** Registration; an invitation's link fills in the address (?email=) and the invitation is taken over. */
export function Register({ search }: { search: URLSearchParams }) {
  const [email, setEmail] = useState(search.get('email') ?? '');
  const [password, setPassword] = useState('');
  const [displayName, setDisplayName] = useState('');
  const register = useRegister();
  return (
    <main class="narrow">
      <h1>Create an account</h1>
      <Form label="Create an account" onSubmit={() => register.mutate({ email, password, ...(displayName ? { displayName } : {}) }, { onSuccess: () => navigate('/?welcome=1', true) })}>
        <Field label="Email" type="email" autoComplete="email" required value={email} onValue={setEmail} />
        <Field label="Display name (optional)" autoComplete="name" value={displayName} onValue={setDisplayName} />
        <Field label="Password" type="password" autoComplete="new-password" required minLength={8} value={password} onValue={setPassword} hint="At least 8 characters." />
        <ErrorText error={register.error} />
        <button type="submit" disabled={register.isPending}>Create account</button>
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
  const verify = useVerifyEmail();
  const { mutate } = verify;
  useEffect(() => {
    mutate(code, {
      onError: (err) => {
        if (err instanceof ApiError && err.status === 403) navigate(`/signin?next=${encodeURIComponent(`/verify?code=${encodeURIComponent(code)}`)}`, true);
      },
    });
  }, [code, mutate]);
  const signInFirst = verify.error instanceof ApiError && verify.error.status === 403;
  return (
    <main class="narrow">
      <h1>Email verification</h1>
      {(verify.isIdle || verify.isPending || signInFirst) && <Notice>Verifying…</Notice>}
      {verify.isSuccess && <Notice>Your email address is verified.</Notice>}
      {!signInFirst && <ErrorText error={verify.error} />}
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
  const requestLink = useRequestPasswordReset();
  const reset = useResetPassword();
  if (userId && token) {
    return (
      <main class="narrow">
        <h1>Choose a new password</h1>
        {reset.isSuccess ? <Notice>Your password is changed. <Link to="/signin">Sign in</Link></Notice> : (
          <Form label="Choose a new password" onSubmit={() => reset.mutate({ userId, token, password })}>
            <Field label="New password" type="password" autoComplete="new-password" required minLength={8} value={password} onValue={setPassword} />
            <ErrorText error={reset.error} />
            <button type="submit" disabled={reset.isPending}>Set password</button>
          </Form>
        )}
      </main>
    );
  }
  return (
    <main class="narrow">
      <h1>Reset your password</h1>
      {requestLink.isSuccess ? <Notice>If an account has this email, a reset link is on its way.</Notice> : (
        <Form label="Reset your password" onSubmit={() => requestLink.mutate(email)}>
          <Field label="Email" type="email" autoComplete="email" required value={email} onValue={setEmail} />
          <ErrorText error={requestLink.error} />
          <button type="submit" disabled={requestLink.isPending}>Send reset link</button>
        </Form>
      )}
      <p><Link to="/signin">Back to sign in</Link></p>
    </main>
  );
}
