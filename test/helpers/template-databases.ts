// Makes the migrated databases a test run copies (scripts/test.mjs runs this once per run, before
// the tests): a SQLite file in DIR and a PostgreSQL database, each migrated from empty. Prints
// `{"sqlite": FILE, "postgres": NAME}` (only the engines asked for) on one line.
//
//   node --import tsx test/helpers/template-databases.ts DIR sqlite,postgres
//
// Running every migration for every test's database was ~80 ms of CPU a database on SQLite and
// ~200 ms on PostgreSQL (client side alone), hundreds of times a run (docs/decisions.md).
import { chmod } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrator.js';

const [dir, engines = 'sqlite,postgres'] = process.argv.slice(2);
if (!dir) throw new Error('usage: template-databases.ts DIR ENGINES');
const PG_ADMIN_URL = process.env.LATCHKEY_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function asAdmin(statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

const dropDatabase = (name: string) => asAdmin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);

const made: Record<string, string> = {};
for (const engine of engines.split(',')) {
  if (engine === 'sqlite') {
    const file = join(dir, 'template.sqlite');
    const db = openDatabase({ kind: 'sqlite', file });
    await migrateToLatest(db);
    // Closing the last connection checkpoints the WAL into the file and removes it: the file alone is the database.
    await db.close();
    await chmod(file, 0o600);
    made.sqlite = file;
  } else if (engine === 'postgres') {
    const name = `latchkey_template_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
    await asAdmin(`CREATE DATABASE ${name}`);
    const url = new URL(PG_ADMIN_URL);
    url.pathname = `/${name}`;
    const db = openDatabase({ kind: 'postgres', url: url.toString() });
    try {
      await migrateToLatest(db);
    } catch (err) {
      await db.close();
      await dropDatabase(name);
      throw err;
    }
    // No connection may stay: CREATE DATABASE … TEMPLATE refuses a template anyone is connected to.
    await db.close();
    made.postgres = name;
  } else {
    throw new Error(`unknown engine "${engine}"`);
  }
}
console.log(JSON.stringify(made));
