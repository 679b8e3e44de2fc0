import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId } from '../../src/crypto/random.js';
import { prepareQuery } from '../../src/db/prepared.js';
import { inTransaction } from '../../src/db/transaction.js';
import { useMigratedDatabase } from '../helpers/database.js';
import pino from 'pino';

const logger = pino({ level: 'silent' });

// Sites are a small table with no foreign keys: enough to exercise every kind of statement.
const insertSite = prepareQuery<{ id: string; name: string; at: number }>((db, slot) =>
  db.insertInto('sites').values({ id: slot.id, name: slot.name, colour: '#000000', created: slot.at, updated: slot.at }));
const siteNamed = prepareQuery<{ name: string }, { id: string; name: string }>((db, slot) =>
  db.selectFrom('sites').select(['id', 'name']).where('name', '=', slot.name).where('logo_url', 'is', null).orderBy('id').limit(1));
const renameSite = prepareQuery<{ id: string; from: string; to: string; at: number }>((db, slot) =>
  db.updateTable('sites').set({ name: slot.to, updated: slot.at }).where('id', '=', slot.id).where('name', '=', slot.from));

describe('prepared queries', () => {
  const database = useMigratedDatabase();

  it('run with the values of each call, keeping the constants they were built with', async () => {
    const db = database();
    const [a, b] = [newId(), newId()];
    await insertSite.execute(db.kysely, db.dialect, { id: a, name: 'North', at: 1 });
    await insertSite.execute(db.kysely, db.dialect, { id: b, name: 'South', at: 2 });
    assert.deepEqual(await siteNamed.takeFirst(db.kysely, db.dialect, { name: 'North' }), { id: a, name: 'North' });
    assert.deepEqual(await siteNamed.takeFirst(db.kysely, db.dialect, { name: 'South' }), { id: b, name: 'South' });
    assert.equal(await siteNamed.takeFirst(db.kysely, db.dialect, { name: 'West' }), undefined);
  });

  it('count the rows a write changed, inside a transaction too', async () => {
    const db = database();
    const id = newId();
    await insertSite.execute(db.kysely, db.dialect, { id, name: 'Old', at: 1 });
    const changed = await inTransaction(db, logger, async (uow) => [
      await renameSite.affectedRows(uow.db, uow.dialect, { id, from: 'Old', to: 'New', at: 3 }),
      await renameSite.affectedRows(uow.db, uow.dialect, { id, from: 'Old', to: 'Newer', at: 4 }),
    ]);
    assert.deepEqual(changed, [1, 0]);
    assert.equal((await siteNamed.takeFirst(db.kysely, db.dialect, { name: 'New' }))?.id, id);
  });

  it('refuse a slot that is read but not used as a value', async () => {
    const db = database();
    const misused = prepareQuery<{ onlyNamed: boolean; name: string }>((kysely, slot) => {
      const query = kysely.selectFrom('sites').select('id');
      return slot.onlyNamed ? query.where('name', '=', slot.name) : query;
    });
    await assert.rejects(misused.execute(db.kysely, db.dialect, { onlyNamed: true, name: 'x' }), /slot "onlyNamed" is not a parameter/);
  });
});
