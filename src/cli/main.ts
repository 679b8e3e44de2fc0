import { runCli } from './commands.js';

const code = await runCli({ argv: process.argv.slice(2), stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() });
if (code !== null) process.exitCode = code;
