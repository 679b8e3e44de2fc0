import { auditVerifyCommand } from '../audit/cli.js';
import { auditCheckpointCommand } from '../audit/cli-checkpoint.js';
import { ConfigError } from '../config/config.js';
import { lockCertificateCommand, lockProvisionCommand } from '../locks/cli.js';
import { siteCreateCommand } from '../sites/cli.js';
import { lockSimulateCommand } from './simulate.js';
import { bridgeCommand, bridgeUnpairCommand } from './bridge.js';
import { UsageError, parseOptions, println, type Command, type CommandIo } from '../command-line/command.js';
import { migrateCommand, serveCommand } from './serve.js';
import { webhookVerifyCommand } from '../webhooks/cli.js';

/** Every `latchkey` command; features add theirs here. */
export const commands: Command[] = [serveCommand, migrateCommand, auditVerifyCommand, auditCheckpointCommand, siteCreateCommand, lockProvisionCommand, lockCertificateCommand, lockSimulateCommand, bridgeCommand, bridgeUnpairCommand, webhookVerifyCommand];

function helpText(all: Command[]): string {
  const width = Math.max(...all.map((c) => c.path.join(' ').length));
  return ['Usage: latchkey <command> [options]', '', 'Commands:', ...all.map((c) => `  ${c.path.join(' ').padEnd(width)}  ${c.summary}`), '', 'Run `latchkey <command> --help` for its options.'].join('\n');
}

export function commandHelp(command: Command): string {
  const rows = [...Object.entries(command.options).map(([name, o]) => [`--${name}${o.type === 'string' ? ' <value>' : ''}`, o.description]), ['--help, -h', 'print this help and exit']];
  const width = Math.max(...rows.map(([flag]) => flag!.length));
  const options = rows.map(([flag, description]) => `  ${flag!.padEnd(width)}  ${description}`);
  return [`Usage: latchkey ${command.usage}`, '', command.summary, '', 'Options:', ...options, ...(command.details ? ['', command.details()] : [])].join('\n');
}

/** A `latchkey` run: the words after `latchkey`, where it writes, the environment it reads. */
export interface CliRun extends CommandIo {
  argv: string[];
}

/**
 * Runs `latchkey` with `argv`: dispatches to a command and returns the exit status (null: the
 * command keeps running, e.g. `serve`). src/cli/main.ts runs it with the process's own argv,
 * streams and environment; a test may run a command in its own process with its own.
 */
export async function runCli({ argv, ...io }: CliRun, all: Command[] = commands): Promise<number | null> {
  const command = all
    .filter((c) => c.path.every((word, i) => argv[i] === word))
    .sort((a, b) => b.path.length - a.path.length)[0];
  if (!command) {
    if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
      println(io.stdout, helpText(all));
      return 0;
    }
    println(io.stderr, `latchkey: unknown command "${argv.join(' ')}"\n\n${helpText(all)}`);
    return 2;
  }
  try {
    const values = parseOptions(command, argv.slice(command.path.length));
    if (values.help) {
      println(io.stdout, commandHelp(command));
      return 0;
    }
    return await command.run(values, io);
  } catch (err) {
    if (err instanceof UsageError) {
      println(io.stderr, `latchkey ${command.path.join(' ')}: ${err.message}`);
      return 2;
    }
    if (err instanceof ConfigError) {
      println(io.stderr, `latchkey: configuration error: ${err.message}`);
      return 2;
    }
    println(io.stderr, `latchkey ${command.path.join(' ')}: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}
