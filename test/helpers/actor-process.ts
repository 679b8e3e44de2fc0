import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/**
 * A third party's stack run in a process of its own for a test (Z-Wave JS with its mock nodes,
 * matter.js's virtual lock): started with one JSON argument, ready when it prints a line with
 * `ready: true`, acted on with JSON lines on stdin (each answered `{"done":seq}` or
 * `{"failed":seq,"message"}`; `{"done":seq,"value":…}` when the request asks for something), stopped
 * with SIGTERM and started again with the same argument.
 */
export interface ActorProcess {
  /** The ready line of the latest start. */
  ready: Record<string, unknown>;
  /** Resolves with the answer's `value` (undefined when it has none). */
  act(request: object): Promise<unknown>;
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function startActorProcess(script: string, argument: object): Promise<ActorProcess> {
  let child: ChildProcess | null = null;
  let seq = 0;
  const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (err: Error) => void }>();
  const actor: ActorProcess = {
    ready: {},
    async start() {
      const started = spawn(process.execPath, ['--import', 'tsx', script, JSON.stringify(argument)], { stdio: ['pipe', 'pipe', 'inherit'] });
      child = started;
      const lines = createInterface({ input: started.stdout! });
      await new Promise<void>((resolve, reject) => {
        started.once('exit', (code) => reject(new Error(`${script} exited (${code}) before it was ready`)));
        lines.on('line', (line) => {
          const message = JSON.parse(line) as { ready?: boolean; done?: number; failed?: number; message?: string; value?: unknown };
          if (message.ready) {
            actor.ready = message;
            resolve();
          }
          const settled = message.done ?? message.failed;
          if (settled === undefined) return;
          const waiter = waiting.get(settled);
          waiting.delete(settled);
          if (message.failed !== undefined) waiter?.reject(new Error(message.message));
          else waiter?.resolve(message.value);
        });
      });
    },
    act(request) {
      const id = (seq += 1);
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        child?.stdin?.write(`${JSON.stringify({ ...request, seq: id })}\n`);
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
  };
  await actor.start();
  return actor;
}
