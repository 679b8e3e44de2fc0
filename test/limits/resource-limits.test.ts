import argon2 from 'argon2';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { after, describe, it } from 'node:test';
import { openStream, type SseStream } from '../events/sse-client.js';
import { createUser } from '../helpers/factories.js';
import { claimLock } from '../helpers/locks.js';
import { useService } from '../helpers/service.js';
import { eventually, within } from '../helpers/wait.js';

/** Issue 27 point 9: what one client may hold of the service at once. */
describe('resource limits', () => {
  const t = useService({ env: { EVENT_STREAMS_PER_USER: '3', HTTP_REQUEST_TIMEOUT_MS: '1000' } });
  const opened: SseStream[] = [];
  after(() => {
    for (const stream of opened) stream.close();
  });

  it('one user holds at most EVENT_STREAMS_PER_USER event streams at once (429 past it); a closed one frees its place', async () => {
    const user = await createUser(t.api);
    const { id } = await claimLock(t, user);
    const open = async () => {
      const stream = await openStream(t.service.url, `/device/events?device=${id}`, { token: user.authToken });
      opened.push(stream);
      return stream;
    };
    const first = await open();
    for (const stream of [first, await open(), await open()]) assert.equal(stream.status, 200);
    // Read as a stream: on a service without the limit it would be an endless 200.
    const refused = await open();
    assert.equal(refused.status, 429);
    assert.ok(refused.headers.get('retry-after'));
    // Another user is not affected.
    const other = await createUser(t.api);
    const theirs = await claimLock(t, other);
    const stream = await openStream(t.service.url, `/device/events?device=${theirs.id}`, { token: other.authToken });
    opened.push(stream);
    assert.equal(stream.status, 200);
    // Once one of the user's own streams ends, they may open another.
    first.close();
    await eventually(async () => {
      const again = await open();
      if (again.status === 200) return again;
      again.close();
      return undefined;
    }, 'a stream opens again once one has closed');
  });

  it('a request whose body stalls is answered 408 and closed once HTTP_REQUEST_TIMEOUT_MS has passed', async () => {
    const socket = connect(Number(new URL(t.service.url).port), '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('error', () => {});
    await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
    socket.write('POST /auth/token HTTP/1.1\r\nHost: latchkey.test\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"email":');
    // Without the limit Node waits 300 s; a generous bound, not a timing: the service must close it.
    const outcome = await within(closed.then(() => 'closed'), 20_000, 'still open');
    socket.destroy();
    assert.equal(outcome, 'closed');
    assert.match(received, /^HTTP\/1\.1 408/);
  });

  it('an anonymous reset with a wrong token costs no password hash', async () => {
    const user = await createUser(t.api);
    const hash = argon2.hash;
    let hashes = 0;
    argon2.hash = ((...args: Parameters<typeof hash>) => {
      hashes += 1;
      return hash(...args);
    }) as typeof hash;
    try {
      for (const userId of [user.userId, randomUUID()]) {
        const res = await t.api.post('/account/password/reset/verify', { body: { userId, token: randomBytes(32).toString('base64url'), password: 'a new password here' } });
        assert.equal(res.status, 400, res.text);
      }
    } finally {
      argon2.hash = hash;
    }
    assert.equal(hashes, 0);
  });
});
