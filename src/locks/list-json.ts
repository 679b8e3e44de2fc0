import build from 'fast-json-stringify';
import { CompiledQuery } from 'kysely';
import type { DialectName } from '../db/database.js';
import type { Executor } from '../db/transaction.js';
import { readPermittedAddresses, readSchedule, readUnlockBetween } from './json.js';
import { DEFAULT_LOCK_COLOUR, directAccessEndpoints, presentUsageRequirements } from './presenters.js';
import { SETTINGS_CAPABILITIES } from './capabilities.js';
import { LockResponse, LockSettingsResponse } from './schemas.js';

/**
 * GET /device as JSON text written by the database (issue 17 §6, docs/scaling.md): one query,
 * one string per lock, the same bytes `presentLock` and Fastify's serialiser give GET
 * /device/{id} (test/locks/list-json.test.ts compares them). Mapping 1,000 rows of ~30 columns to
 * objects, presenting and serialising them cost ~20 ms of CPU; this costs a few, nearly all in
 * the database (each SQL operation ≈ 0.1 µs a row, each result column ≈ 0.2 µs: hence one
 * `printf`/`format` per row rather than `||` chains or several columns).
 *
 * The settings stored as JSON text go out as the SQL finds them when they are the defaults (`[]`,
 * `{}`, null); any other value comes between two MARKs, tagged with its kind, and is replaced
 * here by its reading (failing closed, src/locks/json.ts), presentation and serialisation with
 * the response schema, so key order, defaults and dropped keys are exactly presentLock's. Many
 * locks share the same settings, so those renderings are memoised by stored text.
 */

/** Never in the JSON the SQL writes (it escapes control characters) nor in stored valid JSON. */
const MARK = '\u0001';

/** SQL that turns a value into JSON text, per dialect. */
interface JsonSql {
  /** A string that may need escaping; never NULL. */
  string(expr: string): string;
  /** Unix seconds (`double precision`), possibly NULL, written as JavaScript writes the number. */
  seconds(expr: string): string;
  /** The ids of the tiles that open lock `lockId`, in id order, as a JSON array. */
  tileIds(lockId: string): string;
  /** `template` with each `%s` replaced by the next of `args` (never NULL). */
  format(template: string, args: string[]): string;
  mark: string;
  param: string;
}

const SQLITE: JsonSql = {
  string: (e) => `json_quote(${e})`,
  // A REAL column keeps a whole number as 1700000000.0, which JSON.stringify writes 1700000000.
  seconds: (e) => `iif(${e} is null, 'null', json_quote(iif(${e} = cast(${e} as integer), cast(${e} as integer), ${e})))`,
  tileIds: (lockId) => `(select json_group_array(tile_id order by tile_id) from tile_locks where lock_id = ${lockId})`,
  format: (template, args) => `printf(${literal(template.replace(/%(?!s)/g, '%%'))}, ${args.join(', ')})`,
  mark: 'char(1)',
  param: '?',
};

const POSTGRES: JsonSql = {
  string: (e) => `to_json(${e})::text`,
  // float8 prints the shortest text that reads back the same (extra_float_digits ≥ 1), as JavaScript does.
  seconds: (e) => `coalesce(to_json(${e})::text, 'null')`,
  tileIds: (lockId) => `coalesce((select '[' || string_agg(to_json(tile_id)::text, ',' order by tile_id) || ']' from tile_locks where lock_id = ${lockId}), '[]')`,
  format: (template, args) => `format(${literal(template.replace(/%(?!s)/g, '%%'))}, ${args.join(', ')})`,
  mark: 'chr(1)',
  param: '$1',
};

function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

const bool = (e: string) => `case when ${e} = 1 then 'true' else 'false' end`;

/** An optional flag of the state: absent while unknown (NULL). */
const optionalFlag = (column: string, key: string) => `case when ${column} is null then '' when ${column} = 1 then ',"${key}":true' else ',"${key}":false' end`;

/** `device` once the lock said what it is; its capabilities are stored as known names joined by commas (src/lock-link/reports.ts). */
function device(j: JsonSql): string {
  const capabilities = `case when l.device_capabilities is null or l.device_capabilities = '' then '[]' else '["' || replace(l.device_capabilities, ',', '","') || '"]' end`;
  return `case when l.device_kind is null then '' else ',"device":{"kind":' || ${j.string('l.device_kind')} || ',"capabilities":' || ${capabilities} || '}' end`;
}

/** A stored JSON setting: as it is when it is the default, else marked and tagged with its kind. */
function storedSetting(j: JsonSql, column: string, kind: string, fallback: string): string {
  // `kind` is one letter, or an SQL expression choosing one (in parentheses).
  const marked = `${j.mark} || ${kind.startsWith('(') ? kind : `'${kind}'`} || ${column} || ${j.mark}`;
  return fallback === 'null' ? `case when ${column} is null then 'null' else ${marked} end` : `case when ${column} = '${fallback}' then '${fallback}' else ${marked} end`;
}

/** The statement for one dialect; fields in LockResponse's order, which fast-json-stringify writes (optional ones after the rest). */
function listSql(j: JsonSql): string {
  const fields: Array<[string, string]> = [
    ['{"id":%s', j.string('l.id')],
    [',"name":%s', j.string('coalesce(m.alias, l.default_name, l.name)')],
    [',"lastOperation":%s', j.seconds('coalesce(l.last_operation, l.claimed_at, l.created)')],
    [',"colour":%s', j.string(`coalesce(m.colour, s.colour, ${literal(DEFAULT_LOCK_COLOUR)})`)],
    [',"role":%s', j.string('m.role')],
    [',"settings":{"txBeaconRssi":%s', 'l.tx_beacon_rssi'],
    [',"rxBeaconRssi":%s', 'l.rx_beacon_rssi'],
    [',"unlockTime":%s', 'l.unlock_time'],
    [',"proximityUnlock":%s', bool('l.proximity_unlock')],
    [',"permittedAddresses":%s', storedSetting(j, 'l.permitted_addresses', 'a', '[]')],
    [',"defaultName":%s', j.string('coalesce(l.default_name, l.name)')],
    [',"usageRequirements":%s', storedSetting(j, 'l.usage_requirements', "(case when m.role = 'ADMIN' then 'u' else 'v' end)", '{}')],
    [',"delay":%s', 'l.delay'],
    [',"unlockBetweenWindow":%s', storedSetting(j, 'l.unlock_between', 'w', 'null')],
    [',"tiles":%s', j.tileIds('l.id')],
    [',"hidden":%s', bool('m.hidden')],
    [',"capabilities":%s', literal(JSON.stringify(SETTINGS_CAPABILITIES))],
    [',"directAccess":%s', bool('l.direct_access')],
    [',"directAccessEndpoints":%s}', `case when l.direct_access = 1 and l.direct_access_endpoints is not null then ${j.mark} || 'e' || l.direct_access_endpoints || ${j.mark} else '[]' end`],
    [',"state":{"connected":%s', bool('l.connected')],
    [',"duration":%s', 'l.unlock_time'],
    ['%s', optionalFlag('l.locked', 'locked')],
    ['%s', optionalFlag('l.door_open', 'doorOpen')],
    ['%s', `case when l.battery is null then '' else ',"battery":' || l.battery end`],
    ['%s', optionalFlag('l.jammed', 'jammed')],
    ['%s}', optionalFlag('l.tamper', 'tamper')],
    [',"favourite":%s', bool('m.favourite')],
    [',"unlockTime":%s,"unlockForever":false', 'l.unlock_time'],
    [',"start":%s', j.seconds('m.starts_at')],
    [',"end":%s', j.seconds('m.ends_at')],
    ['%s', device(j)],
    ['%s}', `case when m.schedule is null then '' else ',"schedule":' || ${j.mark} || 's' || m.schedule || ${j.mark} end`],
  ];
  const lock = j.format(fields.map(([template]) => template).join(''), fields.map(([, value]) => value));
  return `select ${lock} as lock
    from lock_members m
    inner join locks l on l.id = m.lock_id
    left join sites s on s.id = l.site_id
    where m.user_id = ${j.param}
    order by l.created, m.lock_id`;
}

const STATEMENTS: Record<DialectName, string> = { sqlite: listSql(SQLITE), postgres: listSql(POSTGRES) };

const RENDERERS: Record<string, (text: string) => string> = {
  a: ((serialise) => (text: string) => serialise(readPermittedAddresses(text)))(build(LockSettingsResponse.properties.permittedAddresses)),
  u: ((serialise) => (text: string) => serialise(presentUsageRequirements(text, 'ADMIN')))(build(LockSettingsResponse.properties.usageRequirements)),
  // A USER's view: whether a location rule applies, not where (presentUsageRequirements).
  v: ((serialise) => (text: string) => serialise(presentUsageRequirements(text, 'USER')))(build(LockSettingsResponse.properties.usageRequirements)),
  e: ((serialise) => (text: string) => serialise(directAccessEndpoints({ direct_access: 1, direct_access_endpoints: text })))(build(LockSettingsResponse.properties.directAccessEndpoints)),
  w: ((serialise) => (text: string) => serialise(readUnlockBetween(text)))(build(LockSettingsResponse.properties.unlockBetweenWindow)),
  s: ((serialise) => (text: string) => serialise(readSchedule(text)))(build(LockResponse.properties.schedule)),
};

/** Renderings by kind and stored text: a pure function of the text, so never stale. Bounded. */
const MEMO_LIMIT = 1024;
const memo = new Map<string, string>();

function renderSetting(tagged: string): string {
  let json = memo.get(tagged);
  if (json === undefined) {
    const render = RENDERERS[tagged[0] ?? ''];
    if (render === undefined) throw new Error('stored lock settings hold a control character');
    json = render(tagged.slice(1));
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(tagged, json);
  }
  return json;
}

/** A lock's JSON from the SQL, its marked settings rendered (even pieces are JSON, odd ones marked settings). */
function finish(lock: string): string {
  if (!lock.includes(MARK)) return lock;
  const pieces = lock.split(MARK);
  if (pieces.length % 2 === 0) throw new Error('stored lock settings hold a control character');
  for (let i = 1; i < pieces.length; i += 2) pieces[i] = renderSetting(pieces[i]!);
  return pieces.join('');
}

/** Every lock `userId` is enrolled on, as the JSON array GET /device answers (oldest lock first). */
export async function listLocksJson(db: Executor, dialect: DialectName, userId: string): Promise<string> {
  const { rows } = await db.executeQuery<{ lock: string }>(CompiledQuery.raw(STATEMENTS[dialect], [userId]));
  let json = '[';
  for (let i = 0; i < rows.length; i++) json += (i === 0 ? '' : ',') + finish(rows[i]!.lock);
  return json + ']';
}
