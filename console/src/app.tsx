import { QueryClient, QueryClientProvider } from '@tanstack/preact-query';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, createApiClient, type ApiClient } from './api/client';
import { Lazy } from './components/lazy';
import { Link } from './components/ui';
import { useKeyRenewal } from './hooks/account';
import { ConsoleContext, createLiveEntries, useApi } from './hooks/context';
import { useLiveLocks } from './hooks/live';
import { useLocks } from './hooks/locks';
import { appPath, match, navigate, usePath } from './hooks/router';
import { AccountPage } from './pages/account';
import { ActivityPage } from './pages/activity';
import { Register, ResetPassword, SignIn, VerifyEmail } from './pages/auth';
import { LockPage } from './pages/lock';
import { LocksPage } from './pages/locks';
import { Visit } from './pages/visit';

/** The keypad codes' pages, loaded when first opened (the first load stays small). */
const loadCodes = () => import('./pages/codes');
/** The alarms and lockdown pages, loaded when first opened (the first load stays small). */
const loadAlarms = () => import('./pages/alarms');
/** Administrators' and developers' pages, loaded when first opened: the first load carries sign-in and the lock pages only. */
const loadShare = () => import('./pages/share');
const loadSites = () => import('./pages/sites');
const loadDoors = () => import('./pages/doors-activity');
const loadWebhooks = () => import('./pages/webhooks');
const loadApps = () => import('./pages/apps');

/** Pages anyone may open; every other page needs a session. */
const PUBLIC = ['/signin', '/register', '/verify', '/reset', '/visit'];

function Nav() {
  // Administrators' pages are offered to administrators only.
  const administers = (useLocks().data ?? []).some((lock) => lock.role === 'ADMIN');
  return (
    <header class="top">
      <Link to="/" class="brand">Latchkey</Link>
      <nav aria-label="Main">
        <Link to="/">Locks</Link>
        {administers && <Link to="/share">Share</Link>}
        {administers && <Link to="/sites">Sites</Link>}
        {administers && <Link to="/codes">Codes</Link>}
        {administers && <Link to="/alarms">Alarms</Link>}
        {administers && <Link to="/doors">All doors</Link>}
        {administers && <Link to="/webhooks">Webhooks</Link>}
        <Link to="/activity">Activity</Link>
        <Link to="/apps">Developers</Link>
        <Link to="/account">Account</Link>
      </nav>
    </header>
  );
}

/** Follows the live events of every lock in the list while signed in; keeps the key certified. */
function Live() {
  const locks = useLocks();
  useLiveLocks((locks.data ?? []).map((lock) => lock.id));
  useKeyRenewal();
  return null;
}

function SignedIn({ path, search }: { path: string; search: URLSearchParams }) {
  let page;
  let params: Record<string, string> | null;
  if (path === '/') page = <LocksPage search={search} />;
  else if ((params = match('/locks/:id', path))) page = <LockPage id={params.id!} tab="" />;
  else if ((params = match('/locks/:id/codes', path))) {
    const lockId = params.id!;
    page = <Lazy load={loadCodes} render={(codes) => <codes.LockCodesPage lockId={lockId} />} />;
  } else if ((params = match('/locks/:id/alarms', path))) {
    const lockId = params.id!;
    page = <Lazy load={loadAlarms} render={(alarms) => <alarms.LockAlarmsPage lockId={lockId} />} />;
  } else if ((params = match('/locks/:id/:tab', path))) page = <LockPage id={params.id!} tab={params.tab!} />;
  else if (path === '/share') page = <Lazy load={loadShare} render={(m) => <m.SharePage />} />;
  else if (path === '/sites') page = <Lazy load={loadSites} render={(m) => <m.SitesPage />} />;
  else if (path === '/codes') page = <Lazy load={loadCodes} render={(codes) => <codes.CodesPage />} />;
  else if (path === '/alarms') page = <Lazy load={loadAlarms} render={(alarms) => <alarms.AlarmsPage />} />;
  else if (path === '/doors') page = <Lazy load={loadDoors} render={(m) => <m.DoorsActivityPage />} />;
  else if (path === '/webhooks') page = <Lazy load={loadWebhooks} render={(m) => <m.WebhooksPage />} />;
  else if (path === '/activity') page = <ActivityPage />;
  else if ((params = match('/users/:id/activity', path))) page = <ActivityPage userId={params.id!} label={search.get('name') ?? undefined} />;
  else if (path === '/account') page = <AccountPage />;
  else if (path === '/apps') page = <Lazy load={loadApps} render={(m) => <m.AppsPage />} />;
  else if ((params = match('/apps/:id', path))) {
    const appId = params.id!;
    page = <Lazy load={loadApps} render={(m) => <m.AppPage id={appId} />} />;
  }
  else page = <main><h1>Not found</h1><p>There is no such page. <Link to="/">Go to your locks</Link></p></main>;
  return (
    <>
      <a class="skip" href="#content">Skip to content</a>
      <Nav />
      <Live />
      <div id="content" tabIndex={-1}>{page}</div>
    </>
  );
}

function App({ client }: { client: QueryClient }) {
  const api = useApi();
  const { path, search } = usePath();
  const [signedIn, setSignedIn] = useState(api.session() !== null);
  useEffect(() => api.onSessionChange((session) => {
    setSignedIn(session !== null);
    if (session === null) {
      client.clear();
      // Back to sign-in, keeping the page the user was on to return to it.
      const here = appPath() + location.search;
      if (!PUBLIC.some((p) => appPath().startsWith(p))) navigate(`/signin?next=${encodeURIComponent(here)}`, true);
    }
  }), [api, client]);
  const isPublic = PUBLIC.some((p) => path.startsWith(p));
  useEffect(() => {
    if (!signedIn && !isPublic) navigate(`/signin?next=${encodeURIComponent(path + location.search)}`, true);
  }, [signedIn, isPublic, path]);
  if (path.startsWith('/signin')) return <SignIn search={search} />;
  if (path.startsWith('/register')) return <Register search={search} />;
  if (path.startsWith('/verify')) return <VerifyEmail search={search} />;
  if (path.startsWith('/reset')) return <ResetPassword search={search} />;
  if (path.startsWith('/visit')) return <Visit />;
  if (!signedIn) return null;
  return <SignedIn path={path} search={search} />;
}

/**
 * Starts the console in `root`: the API client (taking up the session this browser kept), the
 * query cache and the live-entry hand-out are made here, once, and nothing before this call.
 */
export function startConsole(root: HTMLElement): ApiClient {
  const api = createApiClient(localStorage);
  api.resume();
  const client = new QueryClient({
    defaultOptions: {
      // A 4xx will not cure itself: show it at once instead of retrying.
      queries: { retry: (count, error) => !(error instanceof ApiError && error.status >= 400 && error.status < 500) && count < 2, staleTime: 10_000 },
    },
  });
  render(
    <QueryClientProvider client={client}>
      <ConsoleContext.Provider value={{ api, live: createLiveEntries() }}>
        <App client={client} />
      </ConsoleContext.Provider>
    </QueryClientProvider>,
    root,
  );
  return api;
}
