import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type pg from 'pg';
import { openDatabase } from '../../src/db/database.js';
import { MAX_NAMED_PER_CONNECTION, NamingClient, statementName } from '../../src/db/named-statements.js';
import { createTestDatabase, TEST_DB, type TestDatabase } from '../helpers/database.js';

describe('named prepared statements on PostgreSQL', { skip: TEST_DB === 'sqlite' && 'PostgreSQL only (SQLite caches its statements in-process)' }, () => {
  let testDb: TestDatabase;
  // Typed as pg's Client (NamingClient's override keeps pg's behaviour and overloads).
  let client: pg.Client;
  before(async () => {
    testDb = await createTestDatabase();
    client = new NamingClient({ connectionString: testDb.url });
    await client.connect();
  });
  after(async () => {
    await client.end();
    await testDb.drop();
  });

  const prepared = async (): Promise<string[]> =>
    (await client.query<{ name: string }>('select name from pg_prepared_statements order by name')).rows.map((row) => row.name);

  it('names a parameterised text the second time it is sent, and runs it with each call\'s values', async () => {
    const text = 'select cast($1 as int) + 1 as n';
    assert.equal((await client.query<{ n: number }>(text, [1])).rows[0]!.n, 2);
    assert.deepEqual(await prepared(), []);
    assert.equal((await client.query<{ n: number }>(text, [2])).rows[0]!.n, 3);
    assert.deepEqual(await prepared(), [statementName(text)]);
    assert.equal((await client.query<{ n: number }>(text, [41])).rows[0]!.n, 42);
    assert.deepEqual(await prepared(), [statementName(text)]);
  });

  it('keeps a bounded set per connection: texts past it run unnamed', async () => {
    for (let i = 0; i < MAX_NAMED_PER_CONNECTION + 20; i++) {
      const text = `select cast($1 as int) + ${i} as n`;
      for (const value of [1, 2]) assert.equal((await client.query<{ n: number }>(text, [value])).rows[0]!.n, value + i);
    }
    assert.equal((await prepared()).length, MAX_NAMED_PER_CONNECTION);
  });

  it('does not name a text with a list of parameters (its shape varies with the values)', async () => {
    const text = 'select count(*)::int as n from (values (1), (2), (3)) as v(x) where x in ($1, $2, $3, $4)';
    for (let i = 0; i < 3; i++) assert.equal((await client.query<{ n: number }>(text, [1, 2, 3, 4])).rows[0]!.n, 3);
    assert.ok(!(await prepared()).includes(statementName(text)));
  });

  it('runs a statement unnamed once a migration reshaped its table under it, after failing once', async () => {
    // A connection of its own: the tests above filled this file's client's named set.
    const fresh: pg.Client = new NamingClient({ connectionString: testDb.url });
    await fresh.connect();
    try {
      await fresh.query('create table reshaped (a int)');
      await fresh.query('insert into reshaped values (1)');
      const text = 'select * from reshaped where a = $1';
      for (let i = 0; i < 2; i++) assert.deepEqual((await fresh.query(text, [1])).rows, [{ a: 1 }]);
      const named = (await fresh.query<{ name: string }>('select name from pg_prepared_statements')).rows.map((row) => row.name);
      assert.deepEqual(named, [statementName(text)]);
      // Another connection (a newer instance's migration) adds a column.
      await client.query('alter table reshaped add column b int');
      await assert.rejects(fresh.query(text, [1]), (err: { code?: string }) => err.code === '0A000');
      assert.deepEqual((await fresh.query(text, [1])).rows, [{ a: 1, b: null }]);
      assert.deepEqual((await fresh.query(text, [1])).rows, [{ a: 1, b: null }]);
    } finally {
      await fresh.end();
    }
  });

  for (const preparedStatements of [undefined, false]) {
    it(`the service's pool ${preparedStatements === false ? 'names nothing with DATABASE_PREPARED_STATEMENTS=false' : 'names its repeated statements by default'}`, async () => {
      const db = openDatabase({ kind: 'postgres', url: testDb.url, ...(preparedStatements === undefined ? {} : { preparedStatements }) });
      try {
        // One transaction: one connection of the pool, whose prepared statements are then read.
        const names = await db.kysely.transaction().execute(async (trx) => {
          for (const n of [1, 2, 3]) await sql`select cast(${n} as int) as n`.execute(trx);
          return (await sql<{ name: string }>`select name from pg_prepared_statements`.execute(trx)).rows.map((row) => row.name);
        });
        assert.deepEqual(names, preparedStatements === false ? [] : [statementName('select cast($1 as int) as n')]);
      } finally {
        await db.close();
      }
    });
  }
});
