import { spawn, type ChildProcess } from 'node:child_process';

/** `latchkey serve` in a child process of its own (stdout ignored, stderr kept for a failure's message). */
export interface ServeProcess {
  child: ChildProcess;
  stderr(): string;
  /** Resolves with how it ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnServe(env: Record<string, string>): ServeProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve'], {
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, stderr: () => stderr, exited };
}
