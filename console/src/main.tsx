import { QueryClient, QueryClientProvider, useQueryClient } from '@tanstack/preact-query';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, currentSession, currentUserId, onSessionChange } from './api';
import { certify, isCertified, loadKey } from './keys';
import { useLiveLocks } from './live';
import { AccountPage } from './pages/account';
import { AppPage, AppsPage } from './pages/apps';
import { UserAudit } from './pages/audit';
import { Register, ResetPassword, SignIn, VerifyEmail } from './pages/auth';
import { LockPage } from './pages/lock';
import { LocksPage, useLocks } from './pages/locks';
import { appPath, match, navigate, usePath } from './router';
import { Link } from './ui';
import './styles.css';

const client = new QueryClient({
  defaultOptions: {
    // A 4xx will not cure itself: show it at once instead of retrying.
    queries: { retry: (count, error) => !(error instanceof ApiError && error.status >= 400 && error.status < 500) && count < 2, staleTime: 10_000 },
  },
});

/** Pages anyone may open; every other page needs a session. */
const PUBLIC = ['/signin', '/register', '/verify', '/reset'];

function Nav() {
  return (
    <header class="top">
      <Link to="/" class="brand">Latchkey</Link>
      <nav aria-label="Main">
        <Link to="/">Locks</Link>
        <Link to="/activity">Activity</Link>
        <Link to="/apps">Developers</Link>
        <Link to="/account">Account</Link>
      </nav>
    </header>
  );
}

/** Renews this browser's certificate before it expires (checked each minute while the console is open). */
function useKeyRenewal(): void {
  const client = useQueryClient();
  useEffect(() => {
    const check = async () => {
      const userId = currentUserId();
      const key = userId ? await loadKey(userId) : undefined;
      if (!userId || !key?.chain || isCertified(key)) return;
      await certify(userId);
      await client.invalidateQueries({ queryKey: ['key', userId] });
    };
    const timer = setInterval(() => void check().catch(() => undefined), 60_000);
    void check().catch(() => undefined);
    return () => clearInterval(timer);
  }, [client]);
}

/** Follows the live events of every lock in the list while signed in; keeps the key certified. */
function Live() {
  const locks = useLocks();
  useLiveLocks(useQueryClient(), (locks.data ?? []).map((lock) => lock.id));
  useKeyRenewal();
  return null;
}

function SignedIn({ path, search }: { path: string; search: URLSearchParams }) {
  let page;
  let params: Record<string, string> | null;
  if (path === '/') page = <LocksPage search={search} />;
  else if ((params = match('/locks/:id', path))) page = <LockPage id={params.id!} tab="" />;
  else if ((params = match('/locks/:id/:tab', path))) page = <LockPage id={params.id!} tab={params.tab!} />;
  else if (path === '/activity') page = <UserAudit />;
  else if ((params = match('/users/:id/activity', path))) page = <UserAudit userId={params.id!} label={search.get('name') ?? undefined} />;
  else if (path === '/account') page = <AccountPage />;
  else if (path === '/apps') page = <AppsPage />;
  else if ((params = match('/apps/:id', path))) page = <AppPage id={params.id!} />;
  else page = <main><h1>Not found</h1><p>There is no such page. <Link to="/">Go to your locks</Link></p></main>;
  return (
    <>
      <Nav />
      <Live />
      {page}
    </>
  );
}

function App() {
  const { path, search } = usePath();
  const [signedIn, setSignedIn] = useState(currentSession() !== null);
  useEffect(() => onSessionChange((session) => {
    setSignedIn(session !== null);
    if (session === null) {
      client.clear();
      // Back to sign-in, keeping the page the user was on to return to it.
      const here = appPath() + location.search;
      if (!PUBLIC.some((p) => appPath().startsWith(p))) navigate(`/signin?next=${encodeURIComponent(here)}`, true);
    }
  }), []);
  const isPublic = PUBLIC.some((p) => path.startsWith(p));
  useEffect(() => {
    if (!signedIn && !isPublic) navigate(`/signin?next=${encodeURIComponent(path + location.search)}`, true);
  }, [signedIn, isPublic, path]);
  if (path.startsWith('/signin')) return <SignIn search={search} />;
  if (path.startsWith('/register')) return <Register />;
  if (path.startsWith('/verify')) return <VerifyEmail search={search} />;
  if (path.startsWith('/reset')) return <ResetPassword search={search} />;
  if (!signedIn) return null;
  return <SignedIn path={path} search={search} />;
}

render(
  <QueryClientProvider client={client}>
    <App />
  </QueryClientProvider>,
  document.getElementById('app')!,
);
