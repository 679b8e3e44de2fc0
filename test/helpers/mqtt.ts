import { Writable } from 'node:stream';
import { randomBytes, randomUUID } from 'node:crypto';
import pino, { type Logger } from 'pino';
import type { LockDevice, LockEvent, LockState } from '../../src/device-protocol/payloads.js';
import { startLockBroker } from '../../src/lock-link/broker.js';
import { connectLockLink, type LockLink, type LockLinkHandlers, type LockLinkOptions } from '../../src/lock-link/client.js';
import type { EmbeddedBroker } from '../../src/mqtt/broker.js';
import { eventually } from './wait.js';

/** A pino logger whose JSON lines are kept in `lines` for assertions. */
export function capturingLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, sink), lines };
}

export interface TestBroker {
  broker: EmbeddedBroker;
  url: string;
  service: { username: string; password: string };
  /** Registers a lock the broker accepts; returns its id and secret. */
  addLock(): { id: string; secret: string };
  close(): Promise<void>;
}

export async function startTestBroker(logger: Logger = pino({ level: 'silent' })): Promise<TestBroker> {
  const secrets = new Map<string, string>();
  const service = { username: `svc-${randomUUID()}`, password: randomBytes(24).toString('base64url') };
  const broker = await startLockBroker({
    port: 0,
    host: '127.0.0.1',
    serviceCredentials: service,
    authenticateDevice: async (id, secret) => secrets.get(id) === secret,
    logger,
  });
  return {
    broker,
    url: `mqtt://127.0.0.1:${broker.port}`,
    service,
    addLock() {
      const id = randomUUID();
      const secret = randomBytes(24).toString('base64url');
      secrets.set(id, secret);
      return { id, secret };
    },
    close: () => broker.close(),
  };
}

export interface Recorded {
  presence: Array<{ lockId: string; online: boolean }>;
  states: Array<{ lockId: string; state: LockState }>;
  events: Array<{ lockId: string; event: LockEvent }>;
  devices: Array<{ lockId: string; device: LockDevice }>;
}

/** Handlers that record what they receive and can be awaited for a matching record. */
export function recordingHandlers(): { handlers: LockLinkHandlers; seen: Recorded; until: (test: (seen: Recorded) => boolean) => Promise<void> } {
  const seen: Recorded = { presence: [], states: [], events: [], devices: [] };
  return {
    seen,
    handlers: {
      onPresence(lockId, online) { seen.presence.push({ lockId, online }); },
      onState(lockId, state) { seen.states.push({ lockId, state }); },
      onEvent(lockId, event) { seen.events.push({ lockId, event }); },
      onDevice(lockId, device) { seen.devices.push({ lockId, device }); },
    },
    until: async (test) => void (await eventually(() => test(seen), 'the reports awaited')),
  };
}

/** A lock link connected and listening with `handlers` (the service takes the two steps apart). */
export async function createLockLink(options: LockLinkOptions & { handlers: LockLinkHandlers }): Promise<LockLink> {
  const { handlers, ...connection } = options;
  const link = await connectLockLink(connection);
  await link.listen(handlers);
  return link;
}
