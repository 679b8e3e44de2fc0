import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startActorProcess } from './actor-process.js';
import { freeUdpPort } from './ports.js';

/**
 * matter.js's own virtual door locks (test/helpers/matter-lock-process.ts), all in one process of
 * their own on 127.0.0.1, each on its own UDP port, with their storage kept across `stop` and
 * `start` (they keep the bridge's fabric).
 */

export type MatterLockAction = { do: 'door'; open: boolean } | { do: 'slow'; ms: number };

/** One virtual lock of a process. */
export interface VirtualMatterLockDevice {
  /** Where the lock answers (the bridge's known address for it). */
  address: string;
  port: number;
  /** Its setup code, as the 11-digit manual pairing code and as the QR payload (`MT:…`). */
  manualPairingCode: string;
  qrPairingCode: string;
  act(action: MatterLockAction): Promise<void>;
  /** How many fabrics (controllers) the lock belongs to, as the lock itself says. */
  fabrics(): Promise<number>;
  /** Someone types `pin` on the lock's keypad: the lock checks it itself (`unlocked`, or `invalid_credential`, `disabled_user`, `locked_out`). */
  keypad(pin: string): Promise<string>;
  /** The users the lock holds: index, status (1 enabled, 3 disabled), PIN credential indices. */
  users(): Promise<MatterLockUser[]>;
  /** The window of each timed request (a timed invoke's first half) the lock was sent, milliseconds, oldest first. */
  timedWindows(): Promise<number[]>;
}

export interface MatterLockUser {
  userIndex: number;
  userStatus: number;
  pins: number[];
}

export interface VirtualMatterLocks {
  locks: VirtualMatterLockDevice[];
  /** Every lock goes away (the process ends); `start` brings them back as they were. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** One virtual lock in a process of its own, so it can go away and come back alone. */
export interface VirtualMatterLock extends VirtualMatterLockDevice {
  stop(): Promise<void>;
  start(): Promise<void>;
}

const SCRIPT = fileURLToPath(new URL('./matter-lock-process.ts', import.meta.url));
const PASSCODE = 20202021;

/** `count` UDP ports on 127.0.0.1 that were free a moment ago, all different. */
async function freeUdpPorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freeUdpPort());
  return [...ports];
}

/** `pins: false`: locks without PIN users (matter.js's Door Lock without the PIN credential and user features): no keypad. */
export interface VirtualMatterLockOptions {
  pins?: boolean;
}

export async function startVirtualMatterLocks(count: number, { pins = true }: VirtualMatterLockOptions = {}): Promise<VirtualMatterLocks> {
  const ports = await freeUdpPorts(count);
  const storage = await mkdtemp(join(tmpdir(), 'latchkey-matter-lock-'));
  // Each its own discriminator, so discovery could tell them apart too (the tests give addresses).
  const locks = ports.map((port, index) => ({ port, passcode: PASSCODE, discriminator: (3840 + index) % 4096, pins }));
  const actor = await startActorProcess(SCRIPT, { storage, locks });
  const codes = (actor.ready as { locks: Array<{ port: number; manualPairingCode: string; qrPairingCode: string }> }).locks;
  return {
    locks: codes.map(({ port, manualPairingCode, qrPairingCode }, index) => ({
      address: `127.0.0.1:${port}`,
      port,
      manualPairingCode: String(manualPairingCode),
      qrPairingCode: String(qrPairingCode),
      act: async (action) => void (await actor.act({ ...action, lock: index })),
      fabrics: async () => Number(await actor.act({ do: 'fabrics', lock: index })),
      keypad: async (pin) => String(await actor.act({ do: 'keypad', pin, lock: index })),
      users: async () => (await actor.act({ do: 'users', lock: index })) as MatterLockUser[],
      timedWindows: async () => (await actor.act({ do: 'timedWindows', lock: index })) as number[],
    })),
    stop: () => actor.stop(),
    start: () => actor.start(),
  };
}

export async function startVirtualMatterLock(options: VirtualMatterLockOptions = {}): Promise<VirtualMatterLock> {
  const group = await startVirtualMatterLocks(1, options);
  return { ...group.locks[0]!, stop: group.stop, start: group.start };
}
