import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const mosquittoInstalled = !spawnSync('mosquitto', ['-h']).error && !spawnSync('mosquitto_passwd', ['-h']).error;

/** The ACL of docs/device-protocol.md, for prefix `locks` and service user `serviceUser`. */
export function aclFile(serviceUser: string): string {
  return [
    '# Each lock (username = lock id) is confined to its own topics.',
    'pattern write locks/%u/online',
    'pattern write locks/%u/state',
    'pattern write locks/%u/event',
    'pattern write locks/%u/reply',
    'pattern read locks/%u/command',
    'pattern read locks/%u/config',
    '',
    '# The service sees and sends everything under the prefix.',
    `user ${serviceUser}`,
    'topic readwrite locks/#',
    '',
  ].join('\n');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

export interface Mosquitto {
  url: string;
  close(): Promise<void>;
}

/** Starts a private Mosquitto on a free port with a password file of `users` and the documented ACL. */
export async function startMosquitto(users: Array<{ username: string; password: string }>, serviceUser: string, onPort?: number): Promise<Mosquitto> {
  const dir = await mkdtemp(join(tmpdir(), 'latchkey-mosquitto-'));
  // Mosquitto started as root drops to its own user, which must still read these files.
  await chmod(dir, 0o755);
  const passwd = join(dir, 'passwd');
  for (const [index, user] of users.entries()) {
    await run('mosquitto_passwd', index === 0 ? ['-b', '-c', passwd, user.username, user.password] : ['-b', passwd, user.username, user.password]);
  }
  const acl = join(dir, 'acl');
  await writeFile(acl, aclFile(serviceUser));
  const port = onPort ?? (await freePort());
  const conf = join(dir, 'mosquitto.conf');
  await writeFile(conf, [
    `listener ${port} 127.0.0.1`,
    'allow_anonymous false',
    `password_file ${passwd}`,
    `acl_file ${acl}`,
    'persistence false',
    'log_dest none',
    '',
  ].join('\n'));
  for (const file of [passwd, acl, conf]) await chmod(file, 0o644);

  const child: ChildProcess = spawn('mosquitto', ['-c', conf], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let attempt = 0; !(await accepting(port)); attempt += 1) {
    if (attempt > 100 || child.exitCode !== null) {
      child.kill();
      await rm(dir, { recursive: true, force: true });
      throw new Error('mosquitto did not start');
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `mqtt://127.0.0.1:${port}`,
    async close() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
