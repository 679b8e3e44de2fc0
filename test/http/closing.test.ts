import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import pino from 'pino';
import { createHttpApp } from '../../src/http/app.js';

/** Collects what the server writes on `socket` until it has sent `count` responses or hung up. */
function readResponses(socket: Socket, count: number): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString();
      if ((text.match(/HTTP\/1\.1 \d{3}/g) ?? []).length >= count && /\r\n\r\n[^]*\}$/.test(text)) resolve(text);
    });
    socket.on('close', () => resolve(text));
  });
}

/** Resolves once the listener has stopped accepting connections (Fastify closes it after preClose). */
async function stoppedListening(server: Server): Promise<void> {
  while (server.listening) await new Promise((resolve) => setImmediate(resolve));
}

/** An app with `GET /slow`, which waits for `release()` once it has `entered`, and a raw connection to it. */
async function slowApp(extra: (app: Awaited<ReturnType<typeof createHttpApp>>) => void = () => undefined) {
  const app = await createHttpApp({ logger: pino({ level: 'silent' }), baseUrl: 'http://latchkey.test', trustProxy: [] });
  let entered!: () => void;
  const slowEntered = new Promise<void>((resolve) => (entered = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  app.get('/slow', async () => {
    entered();
    await gate;
    return { finished: true };
  });
  extra(app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const socket = connect(typeof address === 'object' && address ? address.port : 0, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  return { app, socket, slowEntered, release };
}

describe('requests that arrive while the service closes', () => {
  it('finish if already running; new ones get 503 in the documented error format', async () => {
    let markClosing!: () => void;
    const closingStarted = new Promise<void>((resolve) => (markClosing = resolve));
    const { app, socket, slowEntered, release } = await slowApp((slow) => {
      slow.get('/fast', async () => ({ fast: true }));
      slow.addHook('preClose', async () => markClosing());
    });
    const responses = readResponses(socket, 2);
    socket.write('GET /slow HTTP/1.1\r\nHost: latchkey.test\r\n\r\n');
    await slowEntered;
    const closed = app.close();
    await closingStarted;
    await stoppedListening(app.server);
    socket.write('GET /fast HTTP/1.1\r\nHost: latchkey.test\r\n\r\n');
    release();
    const text = await responses;
    await closed;
    socket.destroy();

    const [first, second] = text.split(/(?=HTTP\/1\.1 )/);
    assert.ok(second, `two responses expected, got: ${text}`);
    assert.match(first!, /^HTTP\/1\.1 200/);
    assert.ok(first!.endsWith('{"finished":true}'));
    assert.match(second!, /^HTTP\/1\.1 503/);
    const body = JSON.parse(second!.slice(second!.indexOf('\r\n\r\n') + 4));
    assert.equal(body.code, 503);
    assert.equal(typeof body.message, 'string');
    assert.match(second!, /\r\nconnection: close\r\n/i);
  });

  // Without the fix the server would hold the idle connection for Fastify's 72 s keep-alive.
  it('closes the connection of a request that finishes during shutdown, so shutdown does not wait for keep-alive', { timeout: 20_000 }, async () => {
    const { app, socket, slowEntered, release } = await slowApp();
    const hungUp = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const responses = readResponses(socket, 1);
    socket.write('GET /slow HTTP/1.1\r\nHost: latchkey.test\r\nConnection: keep-alive\r\n\r\n');
    await slowEntered;
    const closed = app.close();
    await stoppedListening(app.server);
    release();
    assert.match(await responses, /^HTTP\/1\.1 200/);
    // The server hangs up, and close completes.
    await Promise.all([hungUp, closed]);
  });
});
