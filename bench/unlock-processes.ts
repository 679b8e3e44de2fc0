// The processes of bench/unlock.ts: the service (bench/unlock-service.ts, forked with an IPC
// channel) and the simulated lock (`latchkey lock simulate`, run from the sources), plus the CPU
// time each one used, so the figures can say where the machine's two cores went.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ServiceMessage, ServiceRequest } from './unlock-service.js';

const TSX = ['--import', 'tsx'];
const root = new URL('..', import.meta.url).pathname;

export interface ServiceProcess {
  url: string;
  mqttPort: number;
  rootCertificate: string;
  pid: number;
  /** Milliseconds the process took to load its modules, then to start the service (until it served). */
  loadedMs: number;
  startedMs: number;
  ask<T extends ServiceMessage['type']>(request: ServiceRequest, expect: T): Promise<Extract<ServiceMessage, { type: T }>>;
  stop(): Promise<void>;
}

function nextMessage(child: ChildProcess): Promise<ServiceMessage> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`service process exited (${code})`));
    child.once('exit', onExit);
    child.once('message', (message: ServiceMessage) => {
      child.off('exit', onExit);
      resolve(message);
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Forks the service with `env` as configuration overrides; resolves once it listens. `nodeFlags`
 * go to its node (`--perf-basic-prof` names its compiled JavaScript for Linux perf).
 */
export async function startServiceProcess(env: Record<string, string>, nodeFlags: string[] = []): Promise<ServiceProcess> {
  const child = fork(join(root, 'bench/unlock-service.ts'), [JSON.stringify(env)], { execArgv: [...TSX, ...nodeFlags], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = await nextMessage(child);
  if (ready.type !== 'ready') throw new Error(`service process did not start: ${JSON.stringify(ready)}`);
  let queue: Promise<unknown> = Promise.resolve();
  return {
    url: ready.url,
    mqttPort: ready.mqttPort,
    rootCertificate: ready.rootCertificate,
    pid: child.pid!,
    loadedMs: ready.loadedMs,
    startedMs: ready.startedMs,
    ask(request, expect) {
      // One request at a time, so each answer pairs with its question.
      const answer = queue.then(async () => {
        const reply = nextMessage(child);
        child.send(request);
        const message = await reply;
        if (message.type !== expect) throw new Error(`service process answered ${JSON.stringify(message)} to ${request.type}`);
        return message as Extract<ServiceMessage, { type: typeof expect }>;
      });
      queue = answer.catch(() => undefined);
      return answer;
    },
    async stop() {
      if (child.connected) child.send({ type: 'stop' } satisfies ServiceRequest);
      await exited(child);
    },
  };
}

export interface SimulatorProcess {
  pid: number;
  /** Why the lock cannot be reached, for an error message: its exit, then the end of its log. */
  diagnose(): Promise<string>;
  stop(): Promise<void>;
}

/** `latchkey lock simulate` for the lock, trusting `rootCertificate`; its JSON log goes to a file in `dataDir`. */
export async function startSimulatorProcess(options: { id: string; secret: string; mqttPort: number; rootCertificate: string; dataDir: string }): Promise<SimulatorProcess> {
  const rootFile = join(options.dataDir, 'root.b64');
  await writeFile(rootFile, options.rootCertificate);
  const logFile = join(options.dataDir, 'simulator.log');
  const log = openSync(logFile, 'w');
  const args = [...TSX, join(root, 'src/cli/main.ts'), 'lock', 'simulate', '--id', options.id, '--mqtt', `mqtt://127.0.0.1:${options.mqttPort}`, '--root-file', rootFile];
  const child = spawn(process.execPath, args, { stdio: ['pipe', log, 'inherit'], env: { ...process.env, DATA_DIR: options.dataDir, LOCK_SECRET: options.secret } });
  closeSync(log);
  return {
    pid: child.pid!,
    async diagnose() {
      const state = child.exitCode !== null || child.signalCode !== null ? `exited (${child.exitCode ?? child.signalCode})` : 'running';
      const lines = (await readFile(logFile, 'utf8').catch(() => '')).trim().split('\n').slice(-5);
      return `simulated lock ${state}; its last log lines:\n${lines.join('\n')}`;
    },
    async stop() {
      child.kill('SIGTERM');
      await exited(child);
    },
  };
}

/** CPU seconds (user + system) a process has used so far, from /proc; NaN where there is none. */
export function cpuSecondsOf(pid: number): number {
  try {
    // Fields after the parenthesised command name: state is field 3, utime 14 and stime 15.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}

/** USER_HZ: 100 on every Linux we run on. */
const CLOCK_TICKS = 100;
