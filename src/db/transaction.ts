import type { CompiledQuery, Kysely, QueryResult, Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { Database, DialectName } from './database.js';
import type { DatabaseSchema } from './schema.js';

/** Anything a query can run on: the database itself or an open transaction. */
export type Executor = Kysely<DatabaseSchema> | Transaction<DatabaseSchema>;

/** An open transaction and the side effects to fire once it has committed. */
export interface UnitOfWork {
  readonly db: Transaction<DatabaseSchema>;
  /** The engine it runs on (for engine-specific statements and prepared queries). */
  readonly dialect: DialectName;
  /** Queue a side effect (event, MQTT command, email) to run after commit; dropped on rollback. */
  onCommit(effect: () => unknown): void;
}

type RunNow = NonNullable<Database['runNow']>;

/**
 * The open SQLite transactions and their connection's `runNow`. A transaction holds the one
 * connection (Kysely's mutex) from begin to commit, so its statements may skip the driver's queue
 * and run on the connection at once (runDirectly); the entry goes when the transaction ends.
 */
const openOnConnection = new WeakMap<Executor, RunNow>();

/** Runs `work` with `db` registered as holding its connection (SQLite), unregistered once it settles. */
export async function holdingConnection<T>(database: Database, db: Transaction<DatabaseSchema>, work: () => Promise<T>): Promise<T> {
  if (database.runNow === undefined) return work();
  openOnConnection.set(db, database.runNow);
  try {
    return await work();
  } finally {
    openOnConnection.delete(db);
  }
}

/**
 * Runs a compiled statement on `db`: synchronously on the connection when `db` is an open SQLite
 * transaction of this file or group-commit.ts (the unlock path's statements skip the async
 * driver's promises and mutex: docs/decisions.md, Performance), else through Kysely.
 */
export function runDirectly<R>(db: Executor, query: CompiledQuery<R>): Promise<QueryResult<R>> {
  const runNow = openOnConnection.get(db);
  if (runNow === undefined) return db.executeQuery(query);
  try {
    return Promise.resolve(runNow(query.sql, query.parameters) as QueryResult<R>);
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * Runs `work` in one transaction, then fires the queued side effects in order. A failing side
 * effect is logged, never turned into a failed request: the data change already happened.
 */
export async function inTransaction<T>(database: Database, logger: Logger, work: (uow: UnitOfWork) => Promise<T>): Promise<T> {
  const effects: Array<() => unknown> = [];
  const result = await database.kysely
    .transaction()
    .execute((db) => holdingConnection(database, db, () => work({ db, dialect: database.dialect, onCommit: (effect) => effects.push(effect) })));
  await runAfterCommit(effects, logger);
  return result;
}

/** Fires a committed unit's side effects in order; a failing one is logged and the rest still run. */
export async function runAfterCommit(effects: ReadonlyArray<() => unknown>, logger: Logger): Promise<void> {
  for (const effect of effects) {
    try {
      await effect();
    } catch (err) {
      logger.error({ err }, 'after-commit side effect failed');
    }
  }
}
