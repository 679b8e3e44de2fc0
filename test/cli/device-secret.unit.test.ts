import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { deviceSecret } from '../../src/command-line/device-secret.js';

describe('a device secret for the CLI: file, environment, or (warned) argument', () => {
  let dir: string;
  before(async () => { dir = await mkdtemp(join(tmpdir(), 'latchkey-secret-')); });
  after(async () => rm(dir, { recursive: true, force: true }));

  it('reads the first line of --secret-file, before the environment and the argument, without a warning', async () => {
    const file = join(dir, 'secret');
    await writeFile(file, 's3cret-from-file\n');
    const warnings: string[] = [];
    assert.equal(await deviceSecret({ 'secret-file': file, secret: 'arg' }, 'env', process.cwd(), (l) => warnings.push(l)), 's3cret-from-file');
    assert.deepEqual(warnings, []);
  });

  it('takes LOCK_SECRET next, silently', async () => {
    const warnings: string[] = [];
    assert.equal(await deviceSecret({ secret: 'arg' }, 'from-env', process.cwd(), (l) => warnings.push(l)), 'from-env');
    assert.deepEqual(warnings, []);
  });

  it('still takes --secret, with a warning naming the safer ways', async () => {
    const warnings: string[] = [];
    assert.equal(await deviceSecret({ secret: 'arg' }, null, process.cwd(), (l) => warnings.push(l)), 'arg');
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /LOCK_SECRET/);
    assert.doesNotMatch(warnings[0]!, /arg$/);
  });

  it('refuses no secret, an empty file and a missing file as usage errors', async () => {
    await assert.rejects(deviceSecret({}, null, process.cwd(), () => undefined), { name: 'UsageError' });
    const empty = join(dir, 'empty');
    await writeFile(empty, '\n');
    await assert.rejects(deviceSecret({ 'secret-file': empty }, null, process.cwd(), () => undefined), /empty/);
    await assert.rejects(deviceSecret({ 'secret-file': join(dir, 'absent') }, null, process.cwd(), () => undefined), /ENOENT/);
  });
});
