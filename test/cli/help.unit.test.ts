import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { commandHelp, commands } from '../../src/cli/commands.js';
import { loadConfig } from '../../src/config/config.js';
import { SETTINGS } from '../../src/config/settings.js';

/** The names `loadConfig` looks up in an empty environment: every variable it can read. */
function variablesReadByLoadConfig(): Set<string> {
  const read = new Set<string>();
  const env = new Proxy({} as Record<string, string | undefined>, {
    get(_, name) {
      if (typeof name === 'string') read.add(name);
      return undefined;
    },
  });
  loadConfig(env, '/tmp');
  return read;
}

describe('--help', () => {
  it('every option of every command is described in its help', () => {
    for (const command of commands) {
      const help = commandHelp(command);
      for (const [name, option] of Object.entries(command.options)) {
        assert.ok(option.description.trim().length >= 10, `latchkey ${command.path.join(' ')} --${name} has no real description`);
        const line = help.split('\n').find((l) => l.trimStart().startsWith(`--${name} `) || l.trimStart() === `--${name}`);
        assert.ok(line?.includes(option.description), `latchkey ${command.path.join(' ')} --help does not describe --${name}:\n${help}`);
      }
    }
  });

  it('the settings list is exactly what loadConfig reads, and serve --help lists each with its meaning', () => {
    const listed = SETTINGS.map((s) => s.name);
    assert.equal(new Set(listed).size, listed.length, 'a setting is listed twice');
    assert.deepEqual([...listed].sort(), [...variablesReadByLoadConfig()].sort());
    const serve = commands.find((c) => c.path.join(' ') === 'serve')!;
    const help = commandHelp(serve);
    for (const setting of SETTINGS) {
      assert.match(help, new RegExp(`^  ${setting.name} +${setting.meaning.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm'), `serve --help lacks ${setting.name}`);
    }
  });

  it('the README documents every setting', () => {
    const readme = readFileSync('README.md', 'utf8');
    const missing = SETTINGS.filter((s) => !readme.includes(`\`${s.name}\``)).map((s) => s.name);
    assert.deepEqual(missing, []);
  });
});
