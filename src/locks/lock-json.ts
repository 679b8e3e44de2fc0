import type { TObject, TSchema } from '@sinclair/typebox';
import { LOCK_CAPABILITIES } from '../device-protocol/payloads.js';
import { SETTINGS_CAPABILITIES } from './capabilities.js';
import { DEFAULT_LOCATION_ACCURACY, DEFAULT_LOCATION_RADIUS, type UsageRequirements } from '../access/types.js';
import { readPermittedAddresses, readSchedule, readUnlockBetween, readUsageRequirements } from './json.js';
import type { MemberLockRow } from './queries.js';
import type { LockResponse, UsageRequirementsResponse } from './schemas.js';

/**
 * A lock's JSON (LockResponse), described once: for every key of the response schema, the
 * columns it comes from and how, and when it is absent. From this one description come
 * `presentLock` (GET /device/{id}, POST /device), `presentSiteLock` (the shorter entry of the
 * site and pinned lists: the keys of its own schema) in src/locks/presenters.ts, and the SQL
 * that writes GET /device's JSON on SQLite and PostgreSQL (src/locks/list-json.ts). The keys are
 * typed by the schema's (a key missing here, or one the schema lacks, does not compile); their
 * order, which keys are optional and how a stored setting is serialised come from the schema
 * itself when either form is built, so the list's text is what the schema's serialiser writes.
 *
 * A value is made of columns of one member's row (src/locks/queries.ts, MemberLockRow): the
 * lock (`l`), the member's enrolment (`m`) and the lock's site (`s`). Each kind of value below
 * says what it is in JavaScript and in SQL, side by side: the only place the two are written.
 */

/** Shown when neither the member nor the lock's site chose a colour (the service's primary colour). */
export const DEFAULT_LOCK_COLOUR = '#00283C';

/** Whole metres, at least 1 (the SDK reads radius and accuracy as integers). */
function wholeMetres(value: number | undefined, fallback: number): number {
  return value === undefined ? fallback : Math.max(1, Math.round(value));
}

/**
 * Stored requirements with a location's defaults written out (`enabled` absent means enabled). A
 * USER is told whether a location rule applies (`locationRequired`), never where its centre is
 * (issue 27 point 11): the rule is attested by the client, and the centre is the admin's to know.
 */
export function presentUsageRequirements(text: string, role: 'ADMIN' | 'USER'): UsageRequirementsResponse {
  const stored: UsageRequirements = readUsageRequirements(text);
  if (stored.location === undefined) return stored as UsageRequirementsResponse;
  const { latitude, longitude, enabled, radius, accuracy } = stored.location;
  const time = stored.time !== undefined ? { time: stored.time } : {};
  if (role !== 'ADMIN') return { ...time, locationRequired: enabled ?? true };
  return {
    ...time,
    location: { latitude, longitude, enabled: enabled ?? true, radius: wholeMetres(radius, DEFAULT_LOCATION_RADIUS), accuracy: wholeMetres(accuracy, DEFAULT_LOCATION_ACCURACY) },
  };
}

/** The row a lock's JSON is made from: the lock's columns, the member's, the site's colour. */
export type LockJsonRow = MemberLockRow;

/** A column of the row: its SQL (`l.`, `m.` or `s.`) and its key in the row read for one lock. */
export interface Column {
  sql: string;
  key: keyof LockJsonRow;
}

const l = (column: keyof LockJsonRow & string): Column => ({ sql: `l.${column}`, key: column });
const m = (column: keyof LockJsonRow & string): Column => ({ sql: `m.${column}`, key: column });
const siteColour: Column = { sql: 's.colour', key: 'site_colour' };

/** SQL that turns a value into JSON text, per dialect (src/locks/list-json.ts). */
export interface JsonSql {
  /** A string that may need escaping; never NULL. */
  string(expr: string): string;
  /** Unix seconds (`double precision`), possibly NULL, written as JavaScript writes the number. */
  seconds(expr: string): string;
  /** The ids of the tiles that open lock `lockId`, in id order, as a JSON array. */
  tileIds(lockId: string): string;
}

/** An SQL string literal. */
export function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** The column's value in the row. */
export const cell = (row: LockJsonRow, column: Column): unknown => row[column.key];

/** A value worked out the same way in both forms. */
export interface Plain {
  kind: 'plain';
  /** What presentLock shows. */
  js(row: LockJsonRow, tiles: readonly string[]): unknown;
  /** SQL giving the value's JSON text, never NULL. */
  sql(j: JsonSql): string;
  /** A flag's column: an absent-while-NULL flag is then one SQL `case` (cheaper per row). */
  flag?: Column;
}

/**
 * A setting stored as JSON text, shown as its reading (src/locks/json.ts, failing closed)
 * serialised by its schema. `asIs`: the stored text that is already its own JSON (the default:
 * `[]`, `{}`), which the SQL writes without a reading; null when a NULL shows as null. Otherwise a
 * NULL reads as ''. The reading may depend on another column (`by`: the member's role).
 */
export interface Stored {
  kind: 'stored';
  column: Column;
  asIs: string | null | undefined;
  /** The readings: the first unless `by` names another for the row's value of its column. */
  readings: Array<(text: string) => unknown>;
  by?: { column: Column; cases: Record<string, number> };
  /** Shown only while `column` is `is` and the setting is not NULL; else `otherwise`. */
  only?: { column: Column; is: number; otherwise: unknown };
}

/** The same value for every lock. */
export interface Constant {
  kind: 'constant';
  value: unknown;
}

/** An object value. */
export interface Shape {
  kind: 'object';
  fields: Record<string, Node>;
}

/** A key that is absent while `column` is NULL. */
export interface Optional {
  kind: 'optional';
  column: Column;
  value: Node;
}

export type Node = Plain | Constant | Stored | Shape | Optional;

/** Every key of the schema's type, each with its value. */
type Fields<T> = { [K in keyof T]-?: Node };

const object = <T>(fields: Fields<T>): Shape => ({ kind: 'object', fields });

/** The first of these columns that is not NULL, as a string (else `fallback`). */
const text = (columns: Column[], fallback?: string): Plain => ({
  kind: 'plain',
  js: (row) => {
    for (const column of columns) {
      const value = cell(row, column);
      if (value !== null) return value;
    }
    return fallback;
  },
  sql: (j) => j.string(columns.length === 1 && fallback === undefined ? columns[0]!.sql : `coalesce(${[...columns.map((c) => c.sql), ...(fallback === undefined ? [] : [literal(fallback)])].join(', ')})`),
});

/** A whole number stored as it is shown (never NULL). */
const integer = (column: Column): Plain => ({ kind: 'plain', js: (row) => cell(row, column), sql: () => column.sql });

/** A flag stored as 0/1. */
const flag = (column: Column): Plain => ({ kind: 'plain', flag: column, js: (row) => cell(row, column) === 1, sql: () => `case when ${column.sql} = 1 then 'true' else 'false' end` });

/** Unix seconds: the first of these columns that is not NULL, else null. */
const seconds = (...columns: Column[]): Plain => ({
  kind: 'plain',
  js: (row) => {
    for (const column of columns) {
      const value = cell(row, column);
      if (value !== null) return value;
    }
    return null;
  },
  sql: (j) => j.seconds(columns.length === 1 ? columns[0]!.sql : `coalesce(${columns.map((c) => c.sql).join(', ')})`),
});

const constant = (value: unknown): Constant => ({ kind: 'constant', value });

/** The ids of the tiles that open the lock (handed to presentLock; a subquery in SQL). */
const tiles: Plain = { kind: 'plain', js: (_row, ids) => [...ids], sql: (j) => j.tileIds('l.id') };

const stored = (column: Column, asIs: string | null | undefined, reading: (text: string) => unknown): Stored => ({ kind: 'stored', column, asIs, readings: [reading] });

/** Absent while `column` is NULL. */
const when = (column: Column, value: Node): Optional => ({ kind: 'optional', column, value });

/** The capabilities a lock named, stored as known names joined by commas (src/lock-link/reports.ts), in LOCK_CAPABILITIES' order. */
function readDeviceCapabilities(text: string): string[] {
  const named = new Set(text.split(','));
  return LOCK_CAPABILITIES.filter((capability) => named.has(capability));
}

/** The LAN addresses a lock announced (a JSON list of strings); anything else reads as none. */
function readDirectAccessEndpoints(text: string): string[] {
  try {
    const endpoints: unknown = JSON.parse(text);
    return Array.isArray(endpoints) ? endpoints.filter((endpoint): endpoint is string => typeof endpoint === 'string') : [];
  } catch {
    return [];
  }
}

/** The LAN addresses members may use: those the lock announces, while its owner allows it (issue 28 point 3). */
const directAccessEndpoints: Stored = {
  kind: 'stored',
  column: l('direct_access_endpoints'),
  asIs: undefined,
  readings: [readDirectAccessEndpoints],
  only: { column: l('direct_access'), is: 1, otherwise: [] },
};

/** What an ADMIN and what a USER are shown of the usage requirements (a USER never sees a location's centre). */
const usageRequirements: Stored = {
  kind: 'stored',
  column: l('usage_requirements'),
  asIs: '{}',
  readings: [(text) => presentUsageRequirements(text, 'USER'), (text) => presentUsageRequirements(text, 'ADMIN')],
  by: { column: m('role'), cases: { ADMIN: 1 } },
};

/** Whether the lock says it enforces a lockdown: its id, or '' for none (src/locks/state.ts storeReportedLockdown). */
const lockedDown: Plain = {
  kind: 'plain',
  js: (row) => cell(row, l('reported_lockdown')) !== '',
  sql: () => "case when l.reported_lockdown = '' then 'false' else 'true' end",
};

/** GET /device's and GET /device/{id}'s lock, as one member (the row's) sees it. */
export const LOCK_JSON = object<LockResponse>({
  id: text([l('id')]),
  name: text([m('alias'), l('default_name'), l('name')]),
  // The spec types lastOperation as a number: before any operation, the claim is the last one.
  lastOperation: seconds(l('last_operation'), l('claimed_at'), l('created')),
  colour: text([m('colour'), siteColour], DEFAULT_LOCK_COLOUR),
  role: text([m('role')]),
  settings: object<LockResponse['settings']>({
    txBeaconRssi: integer(l('tx_beacon_rssi')),
    rxBeaconRssi: integer(l('rx_beacon_rssi')),
    unlockTime: integer(l('unlock_time')),
    proximityUnlock: flag(l('proximity_unlock')),
    permittedAddresses: stored(l('permitted_addresses'), '[]', readPermittedAddresses),
    defaultName: text([l('default_name'), l('name')]),
    usageRequirements,
    delay: integer(l('delay')),
    unlockBetweenWindow: stored(l('unlock_between'), null, readUnlockBetween),
    tiles,
    hidden: flag(m('hidden')),
    capabilities: constant(SETTINGS_CAPABILITIES),
    directAccess: flag(l('direct_access')),
    directAccessEndpoints,
  }),
  state: object<LockResponse['state']>({
    locked: when(l('locked'), flag(l('locked'))),
    connected: flag(l('connected')),
    duration: integer(l('unlock_time')),
    doorOpen: when(l('door_open'), flag(l('door_open'))),
    battery: when(l('battery'), integer(l('battery'))),
    jammed: when(l('jammed'), flag(l('jammed'))),
    tamper: when(l('tamper'), flag(l('tamper'))),
    lockedDown: when(l('reported_lockdown'), lockedDown),
  }),
  // What the lock says it is; absent until it says (a lock of protocol 1.1 never does).
  device: when(l('device_kind'), object<NonNullable<LockResponse['device']>>({
    kind: text([l('device_kind')]),
    capabilities: stored(l('device_capabilities'), undefined, readDeviceCapabilities),
  })),
  favourite: flag(m('favourite')),
  unlockTime: integer(l('unlock_time')),
  // Latchkey has no "stay unlocked until told otherwise" mode; the unlock-between window covers schedules.
  unlockForever: constant(false),
  start: seconds(m('starts_at')),
  end: seconds(m('ends_at')),
  schedule: when(m('schedule'), stored(m('schedule'), null, readSchedule)),
});

/** The reading of a stored setting for this row. */
export function readingOf(value: Stored, row: LockJsonRow): (text: string) => unknown {
  const index = value.by === undefined ? 0 : (value.by.cases[String(cell(row, value.by.column))] ?? 0);
  return value.readings[index]!;
}

/** A stored setting's value in JavaScript (what the SQL's marked text is rendered from). */
export function storedValue(value: Stored, row: LockJsonRow): unknown {
  const text = cell(row, value.column) as string | null;
  if (value.only !== undefined && (cell(row, value.only.column) !== value.only.is || text === null)) return value.only.otherwise;
  if (text === null && value.asIs === null) return null;
  return readingOf(value, row)(text ?? '');
}

/** One key of an object: its value, its schema and whether the schema requires it. */
export interface Field {
  key: string;
  node: Node;
  schema: TSchema;
  required: boolean;
}

/**
 * The keys of `schema` with their values in `shape`, in the order the schema's serialiser
 * (fast-json-stringify) writes them: required keys first, then optional ones, each in the schema's
 * order. Throws unless every key of the schema has a value, and a key is optional in the schema
 * exactly when its value can be absent. Keys of `shape` the schema lacks are left out (a shorter
 * shape, such as SiteLockResponse; LockResponse's are checked by the compiler).
 */
export function fieldsOf(shape: Shape, schema: TSchema): Field[] {
  const { properties, required = [] } = schema as TObject;
  if (properties === undefined) throw new Error('lock JSON: an object value whose schema is no object');
  const keys = Object.keys(properties);
  const fields = keys.map((key): Field => {
    const node = shape.fields[key];
    if (node === undefined) throw new Error(`lock JSON: no value for ${key}`);
    const isRequired = required.includes(key);
    if (isRequired === (node.kind === 'optional')) throw new Error(`lock JSON: ${key} is ${isRequired ? 'required' : 'optional'} in the schema, not in the description`);
    return { key, node, schema: properties[key]!, required: isRequired };
  });
  return [...fields.filter((f) => f.required), ...fields.filter((f) => !f.required)];
}

type Present = (row: LockJsonRow, tiles: readonly string[]) => unknown;

/** The JavaScript form of the description for `schema` (its keys only), as a presenter. */
export function presenterOf<T>(shape: Shape, schema: TSchema): (row: LockJsonRow, tiles: readonly string[]) => T {
  return presentValue(shape, schema) as (row: LockJsonRow, tiles: readonly string[]) => T;
}

/** The JavaScript form of a value: undefined when absent. */
function presentValue(node: Node, schema: TSchema): Present {
  switch (node.kind) {
    case 'plain':
      return node.js;
    case 'constant':
      return () => node.value;
    case 'stored':
      return (row) => storedValue(node, row);
    case 'optional': {
      const present = presentValue(node.value, schema);
      return (row, tileIds) => (cell(row, node.column) === null ? undefined : present(row, tileIds));
    }
    case 'object': {
      const fields = fieldsOf(node, schema).map((f) => [f.key, presentValue(f.node, f.schema)] as const);
      return (row, tileIds) => {
        const out: Record<string, unknown> = {};
        for (const [key, present] of fields) {
          const value = present(row, tileIds);
          if (value !== undefined) out[key] = value;
        }
        return out;
      };
    }
  }
}
