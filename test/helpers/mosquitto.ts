import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort, untilAccepting } from './ports.js';

const run = promisify(execFile);

export const mosquittoInstalled = !spawnSync('mosquitto', ['-h']).error && !spawnSync('mosquitto_passwd', ['-h']).error;

/** The Mosquitto files of docs/deployment.md: the tests run them, so the documented set-up is the tested one. */
const DOCS = fileURLToPath(new URL('../../docs/deployment/', import.meta.url));

export type MosquittoConfigName = 'mosquitto-password.conf' | 'mosquitto-certificates.conf';

/** The documented ACL (docs/deployment/mosquitto.acl), for service user `serviceUser`. */
export async function aclFile(serviceUser: string): Promise<string> {
  return (await readFile(join(DOCS, 'mosquitto.acl'), 'utf8')).replace('user latchkey-service', `user ${serviceUser}`);
}



export interface MosquittoOptions {
  /** A configuration of docs/deployment/ (default: password authentication). */
  config?: MosquittoConfigName;
  /** Keep the documented `persistence true` (default false: a broker that forgets on restart). */
  persistence?: boolean;
  /** Mosquitto's common default instead of the documented `allow_anonymous false` (a broker Latchkey must refuse). */
  anonymous?: boolean;
  /** PEM files for the certificate configuration, written where it expects them. */
  tls?: { deviceCa: string; cert: string; key: string };
}

export interface Mosquitto {
  /** The plain listener (password logins). */
  url: string;
  port: number;
  /** The TLS listener of the certificate configuration. */
  tlsPort: number;
  /** Its working directory: configuration, password file, persistence (`data/`). */
  dir: string;
  /** Stops the broker (SIGTERM: with persistence it saves), keeping its directory. */
  stop(): Promise<void>;
  /** Starts it again on the same ports and files. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** The documented configuration with this instance's paths and ports. */
function rewrite(conf: string, dir: string, port: number, tlsPort: number, persistence: boolean, anonymous: boolean): string {
  return `${conf
    .replaceAll('allow_anonymous false', `allow_anonymous ${anonymous}`)
    .replace(/^listener 1883 127\.0\.0\.1$/m, `listener ${port} 127.0.0.1`)
    .replace(/^listener 1883$/m, `listener ${port} 127.0.0.1`)
    .replace(/^listener 8883$/m, `listener ${tlsPort} 127.0.0.1`)
    .replaceAll('/etc/mosquitto/', `${dir}/`)
    .replaceAll('/var/lib/mosquitto/', `${dir}/data/`)
    .replace(/^persistence true$/m, persistence ? 'persistence true' : 'persistence false')}\nlog_dest none\n`;
}

/** Starts a private Mosquitto on free ports with a password file of `users`, the documented ACL and configuration. */
export async function startMosquitto(users: Array<{ username: string; password: string }>, serviceUser: string, options: MosquittoOptions = {}): Promise<Mosquitto> {
  const dir = await mkdtemp(join(tmpdir(), 'latchkey-mosquitto-'));
  // Mosquitto started as root drops to its own user, which must still read these files and write data/.
  await chmod(dir, 0o755);
  await mkdir(join(dir, 'data'));
  await chmod(join(dir, 'data'), 0o777);
  const passwd = join(dir, 'latchkey.passwd');
  await writeFile(passwd, '');
  for (const user of users) await run('mosquitto_passwd', ['-b', passwd, user.username, user.password]);
  const acl = join(dir, 'latchkey.acl');
  await writeFile(acl, await aclFile(serviceUser));
  const files = [passwd, acl];
  if (options.tls) {
    for (const [name, pem] of [['latchkey-device-ca.pem', options.tls.deviceCa], ['broker-cert.pem', options.tls.cert], ['broker-key.pem', options.tls.key]] as const) {
      await writeFile(join(dir, name), pem);
      files.push(join(dir, name));
    }
  }
  const port = await freePort();
  const tlsPort = await freePort();
  const conf = join(dir, 'mosquitto.conf');
  const documented = await readFile(join(DOCS, options.config ?? 'mosquitto-password.conf'), 'utf8');
  await writeFile(conf, rewrite(documented, dir, port, tlsPort, options.persistence === true, options.anonymous === true));
  for (const file of [...files, conf]) await chmod(file, 0o644);

  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  const start = async (): Promise<void> => {
    const started = spawn('mosquitto', ['-c', conf], { stdio: 'ignore' });
    child = started;
    exited = new Promise<void>((resolve) => started.once('exit', () => resolve()));
    await untilAccepting(started, port, 'mosquitto');
  };
  const stop = async (): Promise<void> => {
    if (child !== null && child.exitCode === null) child.kill('SIGTERM');
    await exited;
    child = null;
  };
  try {
    await start();
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: `mqtt://127.0.0.1:${port}`,
    port,
    tlsPort,
    dir,
    stop,
    start,
    async close() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
