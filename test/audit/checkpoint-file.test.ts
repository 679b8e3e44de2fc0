import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { splitCheckpointFile } from '../../src/audit/note.js';
import { startService } from '../../src/server.js';
import { createUser } from '../helpers/factories.js';
import { Api } from '../helpers/http.js';
import { claimLock } from '../helpers/locks.js';
import { startTestService, type TestService, TEST_SERVICE_OPTIONS } from '../helpers/service.js';
import { eventually } from '../helpers/wait.js';

/** The body (origin, size, root) of each note in the file, in order. */
async function fileBodies(file: string): Promise<string[]> {
  return splitCheckpointFile(await readFile(file, 'utf8')).map((note) => note.slice(0, note.indexOf('\n\n')));
}

/** The same, or none while the file is not there yet (the signer writes the row, then the line). */
async function fileBodiesSoFar(file: string): Promise<string[]> {
  return fileBodies(file).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
}

function assertNoRepeat(bodies: string[]): void {
  for (let i = 1; i < bodies.length; i++) assert.notEqual(bodies[i], bodies[i - 1], `checkpoint ${bodies[i]!.split('\n')[1]} written twice in a row (line ${i})`);
}

/** The file's notes once its last is the latest checkpoint GET /audit/checkpoint publishes and that covers the whole tree. */
async function settledFile(t: TestService): Promise<string[]> {
  const head = async () => Number((await t.service.ctx.db.kysely.selectFrom('audit_tree_head').select('size').executeTakeFirstOrThrow()).size);
  let bodies: string[] = [];
  const settled = async () => {
    const res = await t.api.get('/audit/checkpoint');
    if (res.status !== 200 || res.body.treeSize !== (await head())) return undefined;
    bodies = await fileBodiesSoFar(t.config.auditCheckpoint.file);
    const note = res.body.checkpoint as string;
    return bodies.at(-1) === note.slice(0, note.indexOf('\n\n')) && bodies;
  };
  return eventually(settled, 'the file ending with a checkpoint covering the tree').catch(() => {
    throw new Error(`the file does not end with a checkpoint covering the tree: it ends with size ${bodies.at(-1)?.split('\n')[1]}`);
  });
}

describe('AUDIT_CHECKPOINT_FILE never gets the same checkpoint twice in a row', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ AUDIT_CHECKPOINT_INTERVAL_MS: '0', AUDIT_PUBLIC_CHECKPOINT_INTERVAL_S: '0' });
  });
  after(() => t.close());

  it('a restart appends the latest checkpoint only when the file lacks it', async () => {
    const owner = await createUser(t.api);
    await claimLock(t, owner);
    assertNoRepeat(await settledFile(t));
    const file = t.config.auditCheckpoint.file;

    // A restart with nothing new to sign leaves the file as it is.
    const before = await readFile(file, 'utf8');
    const restarted = await startService({ ...t.config, port: 0 }, TEST_SERVICE_OPTIONS);
    await restarted.close();
    assert.equal(await readFile(file, 'utf8'), before);

    // Stopped between the row and the line: the next start writes the line, once.
    const notes = splitCheckpointFile(before);
    await writeFile(file, notes.slice(0, -1).map((note) => `${note}\n`).join(''));
    const again = await startService({ ...t.config, port: 0 }, TEST_SERVICE_OPTIONS);
    try {
      assert.equal((await new Api(again.url).get('/audit/checkpoint')).status, 200);
    } finally {
      await again.close();
    }
    assert.equal(await readFile(file, 'utf8'), before);
  });
});

describe('AUDIT_CHECKPOINT_FILE when instances stop together', () => {
  // An hour's interval: what is recorded is signed when each instance stops, by both at once.
  let t: TestService;
  before(async () => {
    t = await startTestService({ AUDIT_CHECKPOINT_INTERVAL_MS: '3600000', AUDIT_PUBLIC_CHECKPOINT_INTERVAL_S: '0' });
  });
  after(() => t.close());

  it('two instances signing the same head as they stop append it once', async () => {
    const owner = await createUser(t.api);
    await t.service.close();
    // Which instance signs first is a race: a few rounds, so that both orders come up.
    for (let round = 0; round < 6; round++) {
      const [first, second] = await Promise.all([startService({ ...t.config, port: 0 }, TEST_SERVICE_OPTIONS), startService({ ...t.config, port: 0 }, TEST_SERVICE_OPTIONS)]);
      await claimLock({ ...t, api: new Api(first.url), service: first }, owner);
      await claimLock({ ...t, api: new Api(second.url), service: second }, owner);
      await Promise.all([first.close(), second.close()]);
      const bodies = await fileBodies(t.config.auditCheckpoint.file);
      assertNoRepeat(bodies);
      assert.equal(bodies.at(-1)!.split('\n')[1], String(2 * (round + 1)), 'the last line is the checkpoint of every entry');
    }
  });
});
