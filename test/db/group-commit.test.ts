import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import pino from 'pino';
import { newId } from '../../src/crypto/random.js';
import { openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrator.js';
import { isUniqueViolation } from '../../src/db/errors.js';
import { inGroupCommit } from '../../src/db/group-commit.js';
import type { UnitOfWork } from '../../src/db/transaction.js';
import { createTestDatabase, TEST_DB, useMigratedDatabase } from '../helpers/database.js';

const logger = pino({ level: 'silent' });

function insertSite(uow: UnitOfWork, id: string, name = 'Site'): Promise<unknown> {
  return uow.db.insertInto('sites').values({ id, name, colour: '#000000', created: 1, updated: 1 }).execute();
}

function deferred(): { promise: Promise<void>; release: () => void } {
  let release!: () => void;
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release };
}

describe('inGroupCommit', () => {
  const database = useMigratedDatabase();
  const siteExists = async (id: string) => (await database().kysely.selectFrom('sites').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;


  it('commits concurrent units, each answering its own result after its effects ran', async () => {
    const db = database();
    const ids = Array.from({ length: 5 }, () => newId());
    const fired: string[] = [];
    const results = await Promise.all(ids.map((id) => inGroupCommit(db, logger, async (uow) => {
      await insertSite(uow, id);
      uow.onCommit(() => fired.push(id));
      return id;
    })));
    assert.deepEqual(results, ids);
    // One after another on SQLite; PostgreSQL runs the transactions side by side.
    assert.deepEqual(TEST_DB === 'sqlite' ? fired : [...fired].sort(), TEST_DB === 'sqlite' ? ids : [...ids].sort());
    for (const id of ids) assert.equal(await siteExists(id), true);
  });

  it('rolls back only the unit that failed, which rejects with its own error', async () => {
    const db = database();
    const taken = newId();
    await inGroupCommit(db, logger, (uow) => insertSite(uow, taken));
    const [before, partial, after] = [newId(), newId(), newId()];
    const fired: string[] = [];
    const outcomes = await Promise.allSettled([
      inGroupCommit(db, logger, async (uow) => { await insertSite(uow, before); uow.onCommit(() => fired.push(before)); }),
      inGroupCommit(db, logger, async (uow) => {
        uow.onCommit(() => fired.push(partial));
        await insertSite(uow, partial);
        await insertSite(uow, taken); // unique violation: the insert above must go too
      }),
      inGroupCommit(db, logger, async (uow) => { await insertSite(uow, after); uow.onCommit(() => fired.push(after)); }),
    ]);
    assert.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'rejected', 'fulfilled']);
    assert.ok(isUniqueViolation((outcomes[1] as PromiseRejectedResult).reason));
    assert.deepEqual([await siteExists(before), await siteExists(partial), await siteExists(after)], [true, false, true]);
    assert.deepEqual([...fired].sort(), [before, after].sort());
  });

  it('rolls back a failing first unit without taking the units queued behind it along', async () => {
    const db = database();
    const taken = newId();
    await inGroupCommit(db, logger, (uow) => insertSite(uow, taken));
    const [partial, next] = [newId(), newId()];
    const outcomes = await Promise.allSettled([
      inGroupCommit(db, logger, async (uow) => { await insertSite(uow, partial); await insertSite(uow, taken); }),
      inGroupCommit(db, logger, (uow) => insertSite(uow, next)),
    ]);
    assert.deepEqual(outcomes.map((o) => o.status), ['rejected', 'fulfilled']);
    assert.deepEqual([await siteExists(partial), await siteExists(next)], [false, true]);
  });

  it('on SQLite, shows each unit the changes of the units before it', { skip: TEST_DB !== 'sqlite' }, async () => {
    const db = database();
    const id = newId();
    const [, seen] = await Promise.all([
      inGroupCommit(db, logger, (uow) => insertSite(uow, id, 'First')),
      inGroupCommit(db, logger, async (uow) => (await uow.db.selectFrom('sites').select('name').where('id', '=', id).executeTakeFirst())?.name),
    ]);
    assert.equal(seen, 'First');
  });

  it('on SQLite, units arriving while one runs share its commit', { skip: TEST_DB !== 'sqlite' }, async () => {
    const db = database();
    const gate = deferred();
    const order: string[] = [];
    const first = inGroupCommit(db, logger, async (uow) => {
      await insertSite(uow, newId());
      await gate.promise;
      uow.onCommit(() => order.push('first committed'));
    });
    const second = inGroupCommit(db, logger, async (uow) => {
      await insertSite(uow, newId());
      order.push('second ran');
    });
    gate.release();
    await Promise.all([first, second]);
    // Alone, the first would have committed before the second ran.
    assert.deepEqual(order, ['second ran', 'first committed']);
  });

  it('fails the units of a transaction that cannot begin, rather than retrying forever', async () => {
    const closing = await createTestDatabase();
    const closed = openDatabase(closing.config);
    await migrateToLatest(closed);
    await closed.close();
    try {
      const outcomes = await Promise.allSettled([1, 2].map(() => inGroupCommit(closed, logger, (uow) => insertSite(uow, newId()))));
      assert.deepEqual(outcomes.map((o) => o.status), ['rejected', 'rejected']);
    } finally {
      await closing.drop();
    }
  });

  it('on SQLite, fails every unit of a commit that fails', { skip: TEST_DB !== 'sqlite' }, async () => {
    const db = database();
    const [good, orphan] = [newId(), newId()];
    const outcomes = await Promise.allSettled([
      inGroupCommit(db, logger, (uow) => insertSite(uow, good)),
      inGroupCommit(db, logger, async (uow) => {
        // A deferred foreign key is checked at COMMIT: the lock's site does not exist.
        await sql`PRAGMA defer_foreign_keys = ON`.execute(uow.db);
        await uow.db.insertInto('locks').values({ id: orphan, name: 'x', site_id: newId(), registration_key_hash: newId(), secret_hash: newId(), created: 1, updated: 1 }).execute();
      }),
    ]);
    assert.deepEqual(outcomes.map((o) => o.status), ['rejected', 'rejected']);
    assert.equal(await siteExists(good), false);
  });
});
