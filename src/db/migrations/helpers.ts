import type { ColumnDataType } from 'kysely';
import type { DialectName } from '../database.js';

/** Column types that differ between SQLite and PostgreSQL, named once. */
export function columnTypes(dialect: DialectName) {
  return {
    /** Auto-incrementing sequence number (audit order, event ids). */
    serial: (dialect === 'postgres' ? 'bigserial' : 'integer') as ColumnDataType,
    /** Unix seconds with fraction. */
    time: 'double precision' as ColumnDataType,
    bytes: (dialect === 'postgres' ? 'bytea' : 'blob') as ColumnDataType,
  };
}
