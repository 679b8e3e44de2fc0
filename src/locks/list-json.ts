import build from 'fast-json-stringify';
import type { TSchema } from '@sinclair/typebox';
import { CompiledQuery } from 'kysely';
import type { DialectName } from '../db/database.js';
import type { Executor } from '../db/transaction.js';
import { fieldsOf, LOCK_JSON, literal, type JsonSql, type Node, type Optional, type Stored } from './lock-json.js';
import { LockResponse } from './schemas.js';

/**
 * GET /device as JSON text written by the database (issue 17 §6, docs/scaling.md): one query,
 * one string per lock. The SQL is made from the lock's one description (src/locks/lock-json.ts)
 * and its response schema, as presentLock is, so it writes the keys the schema declares, in the
 * order its serialiser writes them; test/locks/list-json.test.ts compares the bytes with GET
 * /device/{id}'s. Mapping 1,000 rows of ~30 columns to objects, presenting and serialising them
 * cost ~20 ms of CPU; this costs a few, nearly all in the database (each SQL operation ≈ 0.1 µs a
 * row, each result column ≈ 0.2 µs: hence one `printf`/`format` per row rather than `||` chains
 * or several columns).
 *
 * The settings stored as JSON text go out as the SQL finds them when they are the defaults (`[]`,
 * `{}`, null); any other value comes between two MARKs, tagged with its reading, and is replaced
 * here by that reading (failing closed, src/locks/json.ts) serialised with its schema, so key
 * order, defaults and dropped keys are exactly presentLock's and the serialiser's.
 */

/** Never in the JSON the SQL writes (it escapes control characters) nor in stored valid JSON. */
const MARK = '\u0001';

/** What the dialects differ in beyond the JSON of values. */
interface Dialect extends JsonSql {
  /** `template` with each `%s` replaced by the next of `args` (never NULL); `%%` is a percent sign. */
  format(template: string, args: string[]): string;
  mark: string;
  param: string;
}

const SQLITE: Dialect = {
  string: (e) => `json_quote(${e})`,
  // A REAL column keeps a whole number as 1700000000.0, which JSON.stringify writes 1700000000.
  seconds: (e) => `iif(${e} is null, 'null', json_quote(iif(${e} = cast(${e} as integer), cast(${e} as integer), ${e})))`,
  tileIds: (lockId) => `(select json_group_array(tile_id order by tile_id) from tile_locks where lock_id = ${lockId})`,
  format: (template, args) => `printf(${literal(template)}, ${args.join(', ')})`,
  mark: 'char(1)',
  param: '?',
};

const POSTGRES: Dialect = {
  string: (e) => `to_json(${e})::text`,
  // float8 prints the shortest text that reads back the same (extra_float_digits ≥ 1), as JavaScript does.
  seconds: (e) => `coalesce(to_json(${e})::text, 'null')`,
  tileIds: (lockId) => `coalesce((select '[' || string_agg(to_json(tile_id)::text, ',' order by tile_id) || ']' from tile_locks where lock_id = ${lockId}), '[]')`,
  format: (template, args) => `format(${literal(template)}, ${args.join(', ')})`,
  mark: 'chr(1)',
  param: '$1',
};

/** A piece of the format template (its `%` doubled) and the SQL of the `%s` it ends with, if any. */
interface Piece {
  text: string;
  arg?: string;
}

/** Renders a tagged stored setting (its reading, serialised with its schema). */
type Renderers = Map<string, (text: string) => string>;

/** The statement for one dialect and the renderings its marks call for. */
class ListCompiler {
  readonly renderers: Renderers = new Map();

  constructor(private readonly j: Dialect) {}

  statement(): string {
    const pieces = this.pieces(LOCK_JSON, LockResponse, '');
    const template = pieces.map((p) => p.text.replace(/%/g, '%%') + (p.arg === undefined ? '' : '%s')).join('');
    const lock = this.j.format(template, pieces.flatMap((p) => (p.arg === undefined ? [] : [p.arg])));
    return `select ${lock} as lock
    from lock_members m
    inner join locks l on l.id = m.lock_id
    left join sites s on s.id = l.site_id
    where m.user_id = ${this.j.param}
    order by l.created, m.lock_id`;
  }

  /** `prefix` (the key, or nothing) and the value, as format pieces: an object's keys stay in the template. */
  private pieces(node: Node, schema: TSchema, prefix: string): Piece[] {
    if (node.kind === 'constant') return [{ text: prefix + build(schema)(node.value) }];
    if (node.kind !== 'object') return [{ text: prefix, arg: this.value(node, schema) }];
    const pieces: Piece[] = [];
    fieldsOf(node, schema).forEach((field, i) => {
      const key = `${i === 0 ? '{' : ','}${JSON.stringify(field.key)}:`;
      if (i === 0 && !field.required) throw new Error('lock JSON: an object whose first key may be absent');
      if (field.node.kind !== 'optional') pieces.push(...this.pieces(field.node, field.schema, i === 0 ? prefix + key : key));
      else pieces.push({ text: '', arg: this.optional(field.node, field.schema, key) });
    });
    return [...pieces, { text: '}' }];
  }

  /** `key` and the value, or '' while the column is NULL, as one SQL expression (one `case` where it can be: each SQL operation costs per row). */
  private optional(node: Optional, schema: TSchema, key: string): string {
    const column = node.column.sql;
    const value = node.value;
    if (value.kind === 'plain' && value.flag?.sql === column) return `case when ${column} is null then '' when ${column} = 1 then ${literal(`${key}true`)} else ${literal(`${key}false`)} end`;
    // A stored setting that shows NULL as null needs no second look at NULL here.
    const json = value.kind === 'stored' && value.asIs === null && value.column.sql === column ? this.marked(value, schema) : this.value(value, schema);
    return `case when ${column} is null then '' else ${literal(key)} || ${json} end`;
  }

  /** The value's JSON text as one SQL expression. */
  private value(node: Node, schema: TSchema): string {
    switch (node.kind) {
      case 'plain':
        return node.sql(this.j);
      case 'constant':
        return literal(build(schema)(node.value));
      case 'stored':
        return this.stored(node, schema);
      case 'optional':
        throw new Error('lock JSON: an optional value inside another');
      case 'object':
        return this.pieces(node, schema, '').map((p) => [literal(p.text), ...(p.arg === undefined ? [] : [p.arg])].join(' || ')).join(' || ');
    }
  }

  /** A stored setting: as it is when it is `asIs`, else marked and tagged with its reading. */
  private stored(node: Stored, schema: TSchema): string {
    const column = node.column.sql;
    const marked = this.marked(node, schema);
    if (node.only !== undefined) return `case when ${node.only.column.sql} = ${node.only.is} and ${column} is not null then ${marked} else ${literal(build(schema)(node.only.otherwise))} end`;
    if (node.asIs === undefined) return marked;
    return node.asIs === null ? `case when ${column} is null then 'null' else ${marked} end` : `case when ${column} = ${literal(node.asIs)} then ${literal(node.asIs)} else ${marked} end`;
  }

  /** The stored text between marks, tagged with its reading (rendered by `finish`). */
  private marked(node: Stored, schema: TSchema): string {
    const serialise = build(schema);
    const tags = node.readings.map((_, index) => {
      const tag = String.fromCharCode(97 + this.renderers.size);
      const reading = node.readings[index]!;
      this.renderers.set(tag, (text) => serialise(reading(text)));
      return tag;
    });
    const tag = node.by === undefined
      ? literal(tags[0]!)
      : `case ${node.by.column.sql} ${Object.entries(node.by.cases).map(([value, index]) => `when ${literal(value)} then ${literal(tags[index]!)}`).join(' ')} else ${literal(tags[0]!)} end`;
    const column = node.column.sql;
    return `${this.j.mark} || ${tag} || ${node.asIs === undefined ? `coalesce(${column}, '')` : column} || ${this.j.mark}`;
  }
}

/** One dialect's statement and renderers. */
interface ListQuery {
  sql: string;
  renderers: Renderers;
}

function compile(j: Dialect): ListQuery {
  const compiler = new ListCompiler(j);
  const sql = compiler.statement();
  return { sql, renderers: compiler.renderers };
}

const QUERIES: Record<DialectName, ListQuery> = { sqlite: compile(SQLITE), postgres: compile(POSTGRES) };

/**
 * A lock's JSON from the SQL, its marked settings rendered (even pieces are JSON, odd ones marked
 * settings). Many locks of a list share the same settings: `rendered` keeps each rendering for the
 * rest of the list (a pure function of the tagged text, made again by the next request).
 */
function finish(lock: string, renderers: Renderers, rendered: Map<string, string>): string {
  if (!lock.includes(MARK)) return lock;
  const pieces = lock.split(MARK);
  if (pieces.length % 2 === 0) throw new Error('stored lock settings hold a control character');
  for (let i = 1; i < pieces.length; i += 2) {
    const tagged = pieces[i]!;
    let json = rendered.get(tagged);
    if (json === undefined) {
      const render = renderers.get(tagged[0] ?? '');
      if (render === undefined) throw new Error('stored lock settings hold a control character');
      rendered.set(tagged, (json = render(tagged.slice(1))));
    }
    pieces[i] = json;
  }
  return pieces.join('');
}

/** Every lock `userId` is enrolled on, as the JSON array GET /device answers (oldest lock first). */
export async function listLocksJson(db: Executor, dialect: DialectName, userId: string): Promise<string> {
  const { sql, renderers } = QUERIES[dialect];
  const { rows } = await db.executeQuery<{ lock: string }>(CompiledQuery.raw(sql, [userId]));
  const rendered = new Map<string, string>();
  let json = '[';
  for (let i = 0; i < rows.length; i++) json += (i === 0 ? '' : ',') + finish(rows[i]!.lock, renderers, rendered);
  return json + ']';
}

