import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../src/cli/commands.js';

/** How a `latchkey` run ended: its exit status and what it wrote. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `latchkey ARGV` run in this process, through the executable's own entry (runCli: dispatch,
 * option parsing, exit status), with `env` as its whole environment, `cwd` (default: this
 * process's) as its directory and its output collected.
 * A `latchkey` process costs ~3 s of CPU loading its modules; what a test proves about a
 * command's output and status does not need one. test/cli/cli.test.ts and
 * test/audit/verify-cli.test.ts keep real processes for the executable's own wiring.
 */
export async function latchkey(argv: string[], env: NodeJS.ProcessEnv, cwd = process.cwd()): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli({ argv, env, cwd, stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) } });
  if (code === null) throw new Error(`latchkey ${argv.join(' ')} kept running: not a command to run in a test's process`);
  return { code, stdout, stderr };
}

/** How a `latchkey` process ended: `code` null when it did not exit by itself (killed, e.g. at the timeout). */
export interface ProcessResult extends Omit<CliResult, 'code'> {
  code: number | null;
}

/** `latchkey ARGV` as its own process (`node --import tsx src/cli/main.ts`), from the checkout's root, with `env` as its whole environment. */
export function latchkeyProcess(argv: string[], env: NodeJS.ProcessEnv, timeoutMs = 180_000): Promise<ProcessResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...argv], { cwd: fileURLToPath(new URL('../../', import.meta.url)), env, timeout: timeoutMs }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}
