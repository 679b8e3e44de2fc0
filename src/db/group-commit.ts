import { CompiledQuery, type Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from './database.js';
import type { DatabaseSchema } from './schema.js';
import { holdingConnection, inTransaction, runAfterCommit, runDirectly, type UnitOfWork } from './transaction.js';

/**
 * Group commit for the short transactions of the unlock path (docs/decisions.md, Performance).
 *
 * On SQLite every transaction already runs alone on the one connection, and its commit (writing
 * each page it changed to the WAL) costs more than its statements. So the units of work started
 * during one turn of the event loop share one transaction, run one after another at the end of
 * that turn: the first as usual, each later one inside a savepoint, so that a unit that fails (a
 * replayed token's unique violation) is rolled back alone and rejects with its own error. After
 * the shared commit each unit's side effects fire and it resolves, in order. Should the commit
 * fail, every unit of it fails. A unit sees the changes of the units before it, as it would had
 * they committed first.
 *
 * On PostgreSQL units keep transactions of their own: they run concurrently there, and a
 * transaction holding the row and advisory locks of several units could deadlock with others.
 *
 * Only for units that do nothing but database work (no waiting on the network): the shared
 * transaction holds the connection until its last unit is done.
 */

/** Units per commit at most, so that other queries waiting for the connection get their turn. */
const MAX_UNITS_PER_COMMIT = 16;

const SAVEPOINT = CompiledQuery.raw('savepoint grouped_unit');
const RELEASE = CompiledQuery.raw('release savepoint grouped_unit');
const ROLLBACK_TO = CompiledQuery.raw('rollback to savepoint grouped_unit');

interface Unit {
  work: (uow: UnitOfWork) => Promise<unknown>;
  logger: Logger;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown; effects: Array<() => unknown> } | { ok: false; error: unknown };

/** Thrown inside the shared transaction to roll it back when its first unit failed. */
class FirstUnitFailed extends Error {}

export class CommitGroup {
  private readonly waiting: Unit[] = [];
  private draining = false;

  constructor(private readonly database: Database) {}

  run<T>(logger: Logger, work: (uow: UnitOfWork) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ work, logger, resolve: resolve as (value: unknown) => void, reject });
      if (this.draining) return;
      this.draining = true;
      // better-sqlite3 is synchronous: a transaction runs start to end within one turn of the
      // event loop, so nothing could ever join it. Starting at the end of this turn lets the units
      // of every request and reply that this turn delivered share the commit.
      setImmediate(() => void this.drain());
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.waiting.length > 0) await this.commitSome();
    } finally {
      this.draining = false;
    }
  }

  /** One transaction for the waiting units (and any that arrive meanwhile), up to the cap. */
  private async commitSome(): Promise<void> {
    // A null outcome: the unit was under way when the transaction itself failed.
    const units: Array<{ unit: Unit; outcome: Outcome | null }> = [];
    let failure: { error: unknown } | null = null;
    try {
      await this.database.kysely.transaction().execute((db) => holdingConnection(this.database, db, async () => {
        while (this.waiting.length > 0 && units.length < MAX_UNITS_PER_COMMIT) {
          const entry: { unit: Unit; outcome: Outcome | null } = { unit: this.waiting.shift()!, outcome: null };
          units.push(entry);
          entry.outcome = await (units.length === 1 ? this.runFirst(db, entry.unit) : this.runInSavepoint(db, entry.unit));
          if (units.length === 1 && !entry.outcome.ok) throw new FirstUnitFailed();
        }
      }));
    } catch (error) {
      if (!(error instanceof FirstUnitFailed)) failure = { error };
    }
    // The transaction could not even begin (the database closed): the units it was for fail with it.
    if (failure !== null && units.length === 0) {
      for (const unit of this.waiting.splice(0, MAX_UNITS_PER_COMMIT)) units.push({ unit, outcome: null });
    }
    for (const { unit, outcome } of units) {
      if (outcome !== null && !outcome.ok) unit.reject(outcome.error);
      else if (failure !== null || outcome === null) unit.reject(failure?.error);
      else {
        await runAfterCommit(outcome.effects, unit.logger);
        unit.resolve(outcome.value);
      }
    }
  }

  private async runFirst(db: Transaction<DatabaseSchema>, unit: Unit): Promise<Outcome> {
    const effects: Array<() => unknown> = [];
    try {
      const value = await unit.work({ db, dialect: this.database.dialect, onCommit: (effect) => effects.push(effect) });
      return { ok: true, value, effects };
    } catch (error) {
      return { ok: false, error };
    }
  }

  private async runInSavepoint(db: Transaction<DatabaseSchema>, unit: Unit): Promise<Outcome> {
    await runDirectly(db, SAVEPOINT);
    const outcome = await this.runFirst(db, unit);
    if (!outcome.ok) await runDirectly(db, ROLLBACK_TO);
    await runDirectly(db, RELEASE);
    return outcome;
  }
}

/**
 * Runs `work` like inTransaction, sharing the commit with units of work that run at the same time
 * on SQLite (see the top of this file); exactly inTransaction on PostgreSQL.
 */
export function inGroupCommit<T>(database: Database, logger: Logger, work: (uow: UnitOfWork) => Promise<T>): Promise<T> {
  if (database.commitGroup === undefined) return inTransaction(database, logger, work);
  return database.commitGroup.run(logger, work);
}
