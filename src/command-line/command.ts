import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

/** A usage error: printed as one line, exit status 2 (operations.md). */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** An option as parseArgs takes it, with the line `--help` prints for it. */
export interface CommandOption {
  type: 'string' | 'boolean';
  short?: string;
  /** What the option does, its unit and default: required, so no option goes undescribed. */
  description: string;
}

/** A text stream a command writes to: the process's stdout or stderr, or what a test collects. */
export interface TextOutput {
  write(text: string): unknown;
}

/**
 * What a command runs with: where its lines go, the environment its configuration is read from
 * and the directory the configuration's relative paths (DATA_DIR, a `sqlite:` file, CA_FILE,
 * BRIDGE_CONFIG) resolve against: `loadConfig(io.env, io.cwd)`. `latchkey` gives it the process's
 * own; a test runs a command in its process with its own (src/cli/commands.ts, runCli). Paths
 * given as options (`--checkpoint FILE`, `--cert-out DIR`, …) resolve against it too (optionPath).
 * The long-running commands are the process's: `serve` and
 * `bridge` log through pino to the process's stdout and stop on its signals, `lock simulate`
 * reads `process.stdin` and writes its JSON lines to `process.stdout`; a second signal exits the
 * process at once.
 */
export interface CommandIo {
  stdout: TextOutput;
  stderr: TextOutput;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** The path given as option `name`, resolved against the command's directory (`io.cwd`); undefined when not given. */
export function optionPath(values: Record<string, string | boolean | undefined>, name: string, io: Pick<CommandIo, 'cwd'>): string | undefined {
  const value = values[name];
  return typeof value === 'string' && value !== '' ? resolve(io.cwd, value) : undefined;
}

/** The path given as option `name`, resolved against the command's directory; a usage error when not given. */
export function requirePath(values: Record<string, string | boolean | undefined>, name: string, io: Pick<CommandIo, 'cwd'>): string {
  const path = optionPath(values, name, io);
  if (path === undefined) throw new UsageError(`--${name} is required`);
  return path;
}

/** Writes `line` and a newline to `output`. */
export function println(output: TextOutput, line: string): void {
  output.write(`${line}\n`);
}

/** `println` to `output`, for code that prints line by line. */
export function printer(output: TextOutput): (line: string) => void {
  return (line) => println(output, line);
}

export interface Command {
  /** Words after `latchkey`, e.g. ['lock', 'provision']. */
  path: string[];
  summary: string;
  usage: string;
  options: Record<string, CommandOption>;
  /** More text for `--help` after the options (e.g. the environment variables). */
  details?: () => string;
  /** Returns the exit status, or null for a long-running command that exits on its own. */
  run(values: Record<string, string | boolean | undefined>, io: CommandIo): Promise<number | null>;
}

const NEGATIVE_NUMBER = /^-\d/;

/**
 * `--longitude -0.1` as `--longitude=-0.1`: parseArgs takes a value that starts with a dash for
 * an option of its own and refuses it, and every site west of Greenwich has one.
 */
function joinNegativeValues(options: Command['options'], args: readonly string[]): string[] {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const name = args[i]!.startsWith('--') ? args[i]!.slice(2) : undefined;
    const next = args[i + 1];
    if (name !== undefined && options[name]?.type === 'string' && next !== undefined && NEGATIVE_NUMBER.test(next)) {
      joined.push(`${args[i]}=${next}`);
      i++;
    } else joined.push(args[i]!);
  }
  return joined;
}

export function parseOptions(command: Command, args: string[]): Record<string, string | boolean | undefined> {
  try {
    const options = Object.fromEntries(Object.entries(command.options).map(([name, { type, short }]) => [name, short === undefined ? { type } : { type, short }]));
    const { values } = parseArgs({ args: joinNegativeValues(command.options, args), options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false });
    return values as Record<string, string | boolean | undefined>;
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
}

export function requireString(values: Record<string, string | boolean | undefined>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

export function optionalNumber(values: Record<string, string | boolean | undefined>, name: string): number | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (typeof value !== 'string' || value.trim() === '' || !Number.isFinite(parsed)) throw new UsageError(`--${name} must be a number`);
  return parsed;
}
