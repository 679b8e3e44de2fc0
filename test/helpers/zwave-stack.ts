import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { freePort } from './ports.js';

/**
 * Z-Wave JS's own mock controller and mock door locks behind a real Z-Wave JS Server
 * (test/helpers/zwave-stack-process.ts), in a process of its own, so a test can take the stack
 * away (`stop`) and bring it back on the same port (`start`).
 */

export type NodeAction =
  | { do: 'door'; open: boolean }
  | { do: 'keypad'; slot: number; locked: boolean }
  | { do: 'manual'; locked: boolean }
  | { do: 'jam' }
  | { do: 'tamper' }
  | { do: 'battery'; level: number }
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
  let child: ChildProcess | null = null;
  let seq = 0;
  const waiting = new Map<number, { resolve: () => void; reject: (err: Error) => void }>();

  const start = async (): Promise<void> => {
    const started = spawn(process.execPath, ['--import', 'tsx', SCRIPT, JSON.stringify({ port, nodeIds })], { stdio: ['pipe', 'pipe', 'inherit'] });
    child = started;
    const lines = createInterface({ input: started.stdout! });
    await new Promise<void>((resolve, reject) => {
      started.once('exit', (code) => reject(new Error(`the Z-Wave stack exited (${code}) before it was ready`)));
      lines.on('line', (line) => {
        const message = JSON.parse(line) as { ready?: boolean; done?: number; failed?: number; message?: string };
        if (message.ready) resolve();
        const settled = message.done ?? message.failed;
        if (settled === undefined) return;
        const waiter = waiting.get(settled);
        waiting.delete(settled);
        if (message.failed !== undefined) waiter?.reject(new Error(message.message));
        else waiter?.resolve();
      });
    });
  };

  await start();
  return {
    url: `ws://127.0.0.1:${port}`,
    act(nodeId, action) {
      const id = (seq += 1);
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        child?.stdin?.write(`${JSON.stringify({ ...action, node: nodeId, seq: id })}\n`);
      });
    },
    async stop() {
      const running = child;
      child = null;
      if (running === null || running.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
      running.kill('SIGTERM');
      await exited;
    },
    start,
  };
}
