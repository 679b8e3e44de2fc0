import { fileURLToPath } from 'node:url';
import { startActorProcess } from './actor-process.js';
import { freePort } from './ports.js';

/**
 * Z-Wave JS's own mock controller and mock door locks behind a real Z-Wave JS Server
 * (test/helpers/zwave-stack-process.ts), in a process of its own, so a test can take the stack
 * away (`stop`) and bring it back on the same port (`start`).
 */

export type NodeAction =
  | { do: 'door'; open: boolean }
  | { do: 'keypad'; slot: number; locked: boolean }
  /** Someone types digits at the keypad: the lock checks its own User Code slots (an enabled one holding them opens, naming its slot; else "invalid credential"). */
  | { do: 'code'; digits: string }
  | { do: 'manual'; locked: boolean }
  | { do: 'jam' }
  | { do: 'tamper' }
  | { do: 'battery'; level: number }
  /** The lock leaves the next `count` pings (No Operation frames) unacknowledged, as a frame lost on the radio. */
  | { do: 'missPings'; count: number }
  /** The lock leaves the next `count` Door Lock Operation Sets that lock it (bolt out) unacknowledged, as lost frames. */
  | { do: 'missLocks'; count: number }
  | { do: 'away' }
  | { do: 'back' }
  | { do: 'slow'; ms: number };

export interface ZwaveStack {
  /** ws://127.0.0.1:PORT of its Z-Wave JS Server. */
  url: string;
  /** Acts on node `nodeId` as a person or the radio would; resolves once done. */
  act(nodeId: number, action: NodeAction): Promise<void>;
  /** Ends the stack's process (SIGTERM). */
  stop(): Promise<void>;
  /** Starts it again, on the same port, with the same nodes (their state starts afresh). */
  start(): Promise<void>;
}

const SCRIPT = fileURLToPath(new URL('./zwave-stack-process.ts', import.meta.url));

export async function startZwaveStack(nodeIds: number[]): Promise<ZwaveStack> {
  const port = await freePort();
  const actor = await startActorProcess(SCRIPT, { port, nodeIds });
  return {
    url: `ws://127.0.0.1:${port}`,
    act: async (nodeId, action) => void (await actor.act({ ...action, node: nodeId })),
    stop: () => actor.stop(),
    start: () => actor.start(),
  };
}
