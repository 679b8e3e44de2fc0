import { connectAsync, type MqttClient } from 'mqtt';
import type { Socket } from 'node:net';

/**
 * A minimal lock written from docs/device-protocol.md alone (deliberately not the simulator):
 * it announces itself, then answers each command according to `behaviour`. It never verifies
 * tokens; that is the simulator's business.
 */
export type Behaviour =
  | { kind: 'unlock' }
  | { kind: 'refuse'; error: string }
  | { kind: 'silent' }
  | { kind: 'late'; delayMs: number };

export interface TestLock {
  client: MqttClient;
  commands: Array<{ id: string; token: string; operation: unknown }>;
  configs: Buffer[];
  behaviour: Behaviour;
  /** Drops the TCP connection without DISCONNECT, as a power cut would: the broker fires the will. */
  powerCut(): Promise<void>;
  close(): Promise<void>;
}

export interface TestLockOptions {
  url: string;
  id: string;
  secret: string;
  prefix?: string;
  behaviour?: Behaviour;
  subscribeConfig?: boolean;
  /** Protocol 1.2: what the lock says it is, and what its first state report adds (battery, jammed, tamper). */
  device?: { kind: string; capabilities?: string[]; codeDigits?: { min: number; max: number } };
  health?: { battery?: number; jammed?: boolean; tamper?: boolean };
}

export async function connectTestLock(options: TestLockOptions): Promise<TestLock> {
  const prefix = options.prefix ?? 'locks';
  const topic = (kind: string): string => `${prefix}/${options.id}/${kind}`;
  const client = await connectAsync(options.url, {
    clientId: options.id,
    username: options.id,
    password: options.secret,
    protocolVersion: 4,
    clean: true,
    reconnectPeriod: 0,
    will: { topic: topic('online'), payload: Buffer.from('{"online":false}'), qos: 1, retain: true },
  }, false);
  (client.stream as Socket).setNoDelay(true);
  const lock: TestLock = {
    client,
    commands: [],
    configs: [],
    behaviour: options.behaviour ?? { kind: 'unlock' },
    async powerCut() {
      const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
      client.stream.destroy();
      await closed;
      await client.endAsync(true);
    },
    close: () => client.endAsync(),
  };
  client.on('message', (messageTopic, payload) => {
    if (messageTopic === topic('config')) {
      lock.configs.push(payload);
      return;
    }
    const command = JSON.parse(payload.toString()) as { id: string; token: string; operation: unknown };
    lock.commands.push(command);
    const reply = (body: object): void => { client.publish(topic('reply'), JSON.stringify({ id: command.id, ...body }), { qos: 1 }); };
    const behaviour = lock.behaviour;
    const state = { locked: false, ts: Date.now() / 1000 };
    if (behaviour.kind === 'unlock') reply({ ok: true, state });
    else if (behaviour.kind === 'refuse') reply({ ok: false, error: behaviour.error });
    else if (behaviour.kind === 'late') setTimeout(() => reply({ ok: true, state }), behaviour.delayMs);
  });
  client.on('error', () => undefined);
  const topics = options.subscribeConfig === false ? [topic('command')] : [topic('command'), topic('config')];
  await client.subscribeAsync(topics, { qos: 1 });
  await client.publishAsync(topic('online'), JSON.stringify({ online: true, ...(options.device ? { device: options.device } : {}) }), { qos: 1, retain: true });
  await client.publishAsync(topic('state'), JSON.stringify({ locked: true, doorOpen: false, ts: Date.now() / 1000, ...options.health }), { qos: 1, retain: true });
  return lock;
}
