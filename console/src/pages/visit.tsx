import { useEffect, useState } from 'preact/hooks';
import { certify, visitorKey } from '../api/browser-key';
import { takeVisit } from '../api/endpoints';
import { ErrorText, Link } from '../components/ui';
import { useApi } from '../hooks/context';
import { navigate } from '../hooks/router';

/**
 * A visitor's emailed link lands here (`/console/visit#<secret>`, issue 28 point 6): the browser
 * makes its key, the link (once) opens the visitor's session with it, the key is certified, and the
 * visitor's doors open with Unlock as anyone's do. No password, no app. The secret is taken out of
 * the address bar at once.
 */
export function Visit() {
  const api = useApi();
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    const secret = location.hash.slice(1);
    history.replaceState(null, '', location.pathname);
    if (!secret) {
      setError(new Error('This visitor link is incomplete: open the whole link from your email.'));
      return;
    }
    void (async () => {
      const key = await visitorKey();
      const userId = await takeVisit(api, { token: secret, ephemeralKey: key.publicKeyBase64 });
      await key.keepFor(userId);
      await certify(api, userId);
      navigate('/?visitor=1', true);
    })().catch(setError);
  }, [api]);
  return (
    <main class="narrow">
      <h1>Your visitor pass</h1>
      {error === null ? <p role="status">Getting your pass ready in this browser…</p> : (
        <>
          <ErrorText error={error} />
          <p>Each visitor link works once. If you opened it before in this browser, <Link to="/">go to your doors</Link>; otherwise ask the person who invited you for a new one.</p>
        </>
      )}
    </main>
  );
}
