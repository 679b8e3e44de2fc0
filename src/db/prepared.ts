import type { Compilable, CompiledQuery, Kysely, QueryResult } from 'kysely';
import { IN_TRANSACTION, type Database, type DialectName } from './database.js';
import type { DatabaseSchema } from './schema.js';
import { runDirectly, type Executor } from './transaction.js';

/**
 * Queries built and compiled once, then run with new values: for the few statements on the
 * unlock path, where Kysely's building and compiling cost more than SQLite's running
 * (docs/decisions.md, Performance). The query is written with Kysely as usual; the values it
 * varies by are named slots, which the compiled query's parameters are mapped back to.
 *
 *   const findName = prepareQuery<{ id: string }, { name: string }>((db, slot) =>
 *     db.selectFrom('locks').select('name').where('id', '=', slot.id));
 *   const row = await findName.takeFirst(db, dialect, { id });
 *
 * A slot must only be used as a value (compared with, inserted, set): the first compile checks
 * that every slot read by `build` came out as a parameter, and throws otherwise.
 */

/** Marks where a value goes; Kysely carries it through to the compiled parameters untouched. */
class Slot {
  constructor(readonly name: string) {}
}

type Template = Pick<CompiledQuery, 'query' | 'queryId' | 'sql'> & {
  /** Per parameter: the name of the slot it takes, or the constant the query was built with. */
  parameters: ReadonlyArray<Slot | { constant: unknown }>;
};

export interface PreparedQuery<Values, Row> {
  /** The statement with these values, to run elsewhere (e.g. `Database.readRowNow`). */
  compile(db: Executor, dialect: DialectName, values: Values): CompiledQuery<Row>;
  execute(db: Executor, dialect: DialectName, values: Values): Promise<QueryResult<Row>>;
  /** The first row, or undefined. */
  takeFirst(db: Executor, dialect: DialectName, values: Values): Promise<Row | undefined>;
  /**
   * The first row, read outside any transaction: synchronously on SQLite when nothing else holds
   * the connection (`Database.readRowNow`: the session read and the lock read that open every
   * request and unlock, docs/decisions.md), else through the driver.
   */
  takeFirstNow(database: Database, values: Values): Promise<Row | undefined>;
  /** How many rows an insert, update or delete changed. */
  affectedRows(db: Executor, dialect: DialectName, values: Values): Promise<number>;
}

function compileTemplate<Values>(db: Executor, build: (db: Kysely<DatabaseSchema>, slot: Values) => Compilable<unknown>): Template {
  const used = new Set<string>();
  const slots = new Proxy({}, {
    get(_target, name) {
      if (typeof name !== 'string') return undefined;
      used.add(name);
      return new Slot(name);
    },
  }) as Values;
  const compiled = build(db, slots).compile();
  const parameters = compiled.parameters.map((value) => (value instanceof Slot ? value : { constant: value }));
  for (const name of used) {
    if (!parameters.some((p) => p instanceof Slot && p.name === name)) throw new Error(`prepared query: slot "${name}" is not a parameter of ${compiled.sql}`);
  }
  return { query: compiled.query, queryId: compiled.queryId, sql: compiled.sql, parameters };
}

/** A query compiled on first use for each dialect; see the top of this file. */
export function prepareQuery<Values extends Record<string, unknown>, Row = never>(
  build: (db: Kysely<DatabaseSchema>, slot: Values) => Compilable<unknown>,
): PreparedQuery<Values, Row> {
  const templates = new Map<DialectName, Template>();
  const compile = (db: Executor, dialect: DialectName, values: Values): CompiledQuery<Row> => {
    let template = templates.get(dialect);
    if (template === undefined) templates.set(dialect, (template = compileTemplate(db, build)));
    const parameters = template.parameters.map((p) => (p instanceof Slot ? values[p.name] : p.constant));
    return { query: template.query, queryId: template.queryId, sql: template.sql, parameters } as CompiledQuery<Row>;
  };
  const execute = async (db: Executor, dialect: DialectName, values: Values): Promise<QueryResult<Row>> => runDirectly(db, compile(db, dialect, values));
  const takeFirst = async (db: Executor, dialect: DialectName, values: Values): Promise<Row | undefined> => (await execute(db, dialect, values)).rows[0];
  return {
    compile,
    execute,
    takeFirst,
    takeFirstNow: async (database, values) => {
      if (database.readRowNow) {
        const compiled = compile(database.kysely, database.dialect, values);
        const row = database.readRowNow<Row>(compiled.sql, compiled.parameters);
        if (row !== IN_TRANSACTION) return row;
      }
      return takeFirst(database.kysely, database.dialect, values);
    },
    affectedRows: async (db, dialect, values) => Number((await execute(db, dialect, values)).numAffectedRows ?? 0),
  };
}
