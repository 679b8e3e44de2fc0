import type { Kysely, Transaction } from 'kysely';
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

/**
 * Runs `work` in one transaction, then fires the queued side effects in order. A failing side
 * effect is logged, never turned into a failed request: the data change already happened.
 */
export async function inTransaction<T>(database: Database, logger: Logger, work: (uow: UnitOfWork) => Promise<T>): Promise<T> {
  const effects: Array<() => unknown> = [];
  const result = await database.kysely.transaction().execute((db) => work({ db, dialect: database.dialect, onCommit: (effect) => effects.push(effect) }));
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
