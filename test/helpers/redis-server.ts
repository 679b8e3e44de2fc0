import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { freePort, untilAccepting } from './ports.js';

export const redisServerInstalled = !spawnSync('redis-server', ['--version']).error;

/** A private Redis (no persistence) a test may stop and start again on the same port: an outage. */
export interface PrivateRedis {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  const start = async () => {
    const started = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    child = started;
    exited = new Promise<void>((resolve) => started.once('exit', () => resolve()));
    await untilAccepting(started, port, 'redis-server');
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (child && child.exitCode === null) child.kill('SIGKILL');
      await exited;
      child = null;
    },
    start,
  };
}
