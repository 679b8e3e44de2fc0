import { commands, runCommand } from './commands.js';

const code = await runCommand(process.argv.slice(2), commands);
if (code !== null) process.exitCode = code;
