import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A usage error: printed as one line, exit status 2 (operations.md). */
export class UsageError extends Error {
  override name = 'UsageError';
}

export interface Command {
  /** Words after `latchkey`, e.g. ['lock', 'provision']. */
  path: string[];
  summary: string;
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  /** Returns the exit status, or null for a long-running command that exits on its own. */
  run(values: Record<string, string | boolean | undefined>): Promise<number | null>;
}

export function parseOptions(command: Command, args: string[]): Record<string, string | boolean | undefined> {
  try {
    const { values } = parseArgs({ args, options: { ...command.options, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false });
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
