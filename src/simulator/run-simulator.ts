import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { SimulatedLock, type SimulatorLan, type SimulatorLog } from './simulated-lock.js';

export interface SimulatorOptions {
  id: string;
  secret: string;
  /** mqtt:// or mqtts:// of the broker the service uses (embedded: mqtt://HOST:MQTT_PORT). */
  mqttUrl: string;
  /** `--reply-delay`: milliseconds to wait before handling each command. Default 0. */
  replyDelayMs?: number;
  /** Base64 DER of the root CA the lock trusts for EdDSA tokens. */
  trustedRoot?: string;
  /** Where used tokens are remembered across restarts (`--replay-file`); default: in memory. */
  replayFile?: string;
  /** Where what the lock did on its own waits while the service cannot be reached (`--outbox-file`); default: in memory. */
  outboxFile?: string;
  /** Serve unlock on the LAN (`--lan-port`, protocol 1.3). */
  lan?: SimulatorLan;
  /** Where a lockdown in force is kept across restarts (`--lockdown-file`, protocol 1.4); default: in memory. */
  lockdownFile?: string;
  /** Where the keypad keeps each code's uses and a lockout across restarts (`--keypad-file`); default: in memory. */
  keypadFile?: string;
  topicPrefix?: string;
  /** Lines `open`, `close`, `offline`, `online`, `state`, `code DIGITS`, `keypad SLOT lock|unlock`, `manual lock|unlock` are read from here. */
  stdin: Readable;
  /** One JSON line per thing the lock does is written here. */
  stdout: Writable;
  /** Clock, Unix seconds. Default: the system clock. */
  now?: () => number;
}

export interface RunningSimulator {
  lock: SimulatedLock;
  /** Stops reading input, reports the lock offline and disconnects. */
  close(): Promise<void>;
}

const INPUTS = ['open', 'close', 'offline', 'online', 'state', 'code DIGITS', 'keypad SLOT lock|unlock', 'manual lock|unlock', 'help'] as const;

/** `code 482915`: digits typed at the keypad. Such a line is never logged as it was typed. */
const CODE_INPUT = /^code\s+(\S*)$/;

/** The input as the log may show it: a keypad line without its digits. */
function shownInput(line: string): string {
  return CODE_INPUT.test(line.trim().toLowerCase()) ? 'code …' : line.trim().slice(0, 100);
}

/** `keypad 3 unlock`, `manual lock`: someone at the door; null when the line is not one. */
function doorOperation(input: string): { source: 'keypad' | 'manual'; locked: boolean; slot?: number } | null {
  const keypad = /^keypad\s+(\d{1,5})\s+(lock|unlock)$/.exec(input);
  if (keypad !== null && Number(keypad[1]) <= 65535) return { source: 'keypad', slot: Number(keypad[1]), locked: keypad[2] === 'lock' };
  const manual = /^manual\s+(lock|unlock)$/.exec(input);
  return manual === null ? null : { source: 'manual', locked: manual[1] === 'lock' };
}

function jsonLines(stdout: Writable, id: string, now: () => number): SimulatorLog {
  return (action, fields = {}) => {
    stdout.write(`${JSON.stringify({ ts: now(), lock: id, action, ...fields })}\n`);
  };
}

async function handleInput(line: string, lock: SimulatedLock, log: SimulatorLog): Promise<void> {
  const input = line.trim().toLowerCase();
  const code = CODE_INPUT.exec(input);
  if (code !== null) {
    if (!/^[0-9]{1,12}$/.test(code[1]!)) return log('unknown_input', { input: 'code …', inputs: INPUTS });
    await lock.enterCode(code[1]!);
    return;
  }
  const operation = doorOperation(input);
  if (operation !== null) {
    if (!lock.operate(operation.source, operation.locked, operation.slot)) log('operation_refused', { ...operation, reason: 'the unlock-between window holds the lock open' });
    return;
  }
  switch (input) {
    case '': return;
    case 'open': return lock.door(true);
    case 'close': return lock.door(false);
    case 'offline': return lock.powerCut();
    case 'online': return lock.connect();
    case 'state': return log('status', { ...lock.state, connected: lock.connected, configVersion: lock.configVersion });
    case 'help': return log('help', { inputs: INPUTS });
    default: return log('unknown_input', { input: shownInput(input), inputs: INPUTS });
  }
}

/**
 * `latchkey lock simulate`: runs a virtual lock (docs/device-protocol.md) until closed. Resolves
 * once the lock is connected and announced; rejects when the first connection fails.
 */
export async function runSimulator(options: SimulatorOptions): Promise<RunningSimulator> {
  const now = options.now ?? (() => Date.now() / 1000);
  const log = jsonLines(options.stdout, options.id, now);
  const lock = new SimulatedLock({
    id: options.id,
    secret: options.secret,
    mqttUrl: options.mqttUrl,
    replyDelayMs: options.replyDelayMs ?? 0,
    now,
    log,
    ...(options.trustedRoot === undefined ? {} : { trustedRoot: options.trustedRoot }),
    ...(options.replayFile === undefined ? {} : { replayFile: options.replayFile }),
    ...(options.outboxFile === undefined ? {} : { outboxFile: options.outboxFile }),
    ...(options.lan === undefined ? {} : { lan: options.lan }),
    ...(options.lockdownFile === undefined ? {} : { lockdownFile: options.lockdownFile }),
    ...(options.keypadFile === undefined ? {} : { keypadFile: options.keypadFile }),
    ...(options.topicPrefix === undefined ? {} : { topicPrefix: options.topicPrefix }),
  });
  try {
    await lock.connect();
  } catch (err) {
    await lock.close();
    throw err;
  }

  const lines = createInterface({ input: options.stdin, crlfDelay: Infinity });
  // Inputs run one after another, so `offline` then `online` cannot overlap.
  let queue = Promise.resolve();
  lines.on('line', (line) => {
    queue = queue
      .then(() => handleInput(line, lock, log))
      .catch((err: unknown) => log('error', { input: shownInput(line), message: err instanceof Error ? err.message : String(err) }));
  });

  let closing: Promise<void> | undefined;
  return {
    lock,
    close: () => (closing ??= (async () => {
      lines.close();
      await queue;
      await lock.close();
      log('stopped');
    })()),
  };
}
