import { readFile } from 'node:fs/promises';
import { optionPath, UsageError } from './command.js';

/**
 * A lock's device secret for a command: from `--secret-file` (its first line), else the
 * LOCK_SECRET environment variable (read by src/config), else `--secret` with a warning: a
 * command line is visible to every user of the machine (`ps`, /proc/PID/cmdline).
 */
export async function deviceSecret(
  values: Record<string, string | boolean | undefined>,
  fromEnvironment: string | null,
  /** The command's directory, which a relative --secret-file is read from. */
  cwd: string,
  warn: (line: string) => void = (line) => console.error(line),
): Promise<string> {
  const file = optionPath(values, 'secret-file', { cwd });
  if (file !== undefined) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      throw new UsageError(`--secret-file: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    const secret = text.split(/\r?\n/)[0]!.trim();
    if (secret === '') throw new UsageError('--secret-file is empty');
    return secret;
  }
  if (fromEnvironment !== null) return fromEnvironment;
  const given = values.secret;
  if (typeof given === 'string' && given !== '') {
    warn('latchkey: warning: --secret puts the device secret where every user of this machine can read it (ps); use LOCK_SECRET or --secret-file instead');
    return given;
  }
  throw new UsageError('a device secret is required: LOCK_SECRET, --secret-file PATH (or, discouraged, --secret S)');
}
