import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from './config.js';

/** A path the service keeps to itself, and the widest permissions it may have. */
interface PrivatePath {
  path: string;
  mode: 0o600 | 0o700;
}

/**
 * What the service writes that no other user of the machine should read: the data directory, the
 * SQLite database (with its WAL and shared-memory files), the key-encryption key file and the
 * outbox of messages (verification codes, reset links).
 */
export function privatePaths(config: Pick<Config, 'dataDir' | 'database' | 'keyEncryptionKey'>): PrivatePath[] {
  const paths: PrivatePath[] = [{ path: config.dataDir, mode: 0o700 }, { path: join(config.dataDir, 'outbox'), mode: 0o700 }];
  if (config.database.kind === 'sqlite') {
    const file = config.database.file;
    paths.push({ path: file, mode: 0o600 }, { path: `${file}-wal`, mode: 0o600 }, { path: `${file}-shm`, mode: 0o600 });
  }
  if (!config.keyEncryptionKey) paths.push({ path: join(config.dataDir, 'key-encryption.key'), mode: 0o600 });
  return paths;
}

/** The private paths that exist and that a group or other users may read, write or enter. */
export function looserThanPrivate(paths: PrivatePath[]): Array<PrivatePath & { actual: number }> {
  const loose: Array<PrivatePath & { actual: number }> = [];
  for (const entry of paths) {
    let actual: number;
    try {
      actual = statSync(entry.path).mode & 0o777;
    } catch {
      continue; // not made yet: it will be made private
    }
    if ((actual & 0o077) !== 0) loose.push({ ...entry, actual });
  }
  return loose;
}

/** Start-up check: warns, naming each path and the `chmod` that fixes it; the service still starts. */
export function warnAboutLoosePrivateFiles(config: Pick<Config, 'dataDir' | 'database' | 'keyEncryptionKey'>, logger: Logger): void {
  for (const { path, mode, actual } of looserThanPrivate(privatePaths(config))) {
    const octal = (n: number) => `0${n.toString(8)}`;
    logger.warn({ path, mode: octal(actual), expected: octal(mode) }, `${path} is readable by other users of this machine: chmod ${octal(mode).slice(1)} ${path}`);
  }
}
