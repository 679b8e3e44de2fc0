import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startActorProcess } from './actor-process.js';
import { freeUdpPort } from './ports.js';

/**
 * matter.js's own virtual door lock (test/helpers/matter-lock-process.ts) in a process of its own
 * on 127.0.0.1, with its storage kept across `stop` and `start` (it keeps the bridge's fabric).
 */

export type MatterLockAction = { do: 'door'; open: boolean } | { do: 'slow'; ms: number };

export interface VirtualMatterLock {
  /** Where the lock answers (the bridge's known address for it). */
  address: string;
  manualPairingCode: string;
  act(action: MatterLockAction): Promise<void>;
  /** The lock goes away (its process ends); `start` brings it back as it was. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

const SCRIPT = fileURLToPath(new URL('./matter-lock-process.ts', import.meta.url));

export async function startVirtualMatterLock(): Promise<VirtualMatterLock> {
  const port = await freeUdpPort();
  const storage = await mkdtemp(join(tmpdir(), 'latchkey-matter-lock-'));
  const actor = await startActorProcess(SCRIPT, { port, storage, passcode: 20202021, discriminator: 3840 });
  return {
    address: `127.0.0.1:${port}`,
    manualPairingCode: String(actor.ready.manualPairingCode),
    act: (action) => actor.act(action),
    stop: () => actor.stop(),
    start: () => actor.start(),
  };
}
