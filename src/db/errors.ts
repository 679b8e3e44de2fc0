import { errors, type AppError } from '../errors/catalogue.js';

/** SQLite and PostgreSQL report constraint violations differently; this is the one place that knows. */
function constraintKind(err: unknown): 'unique' | 'foreign_key' | null {
  if (typeof err !== 'object' || err === null) return null;
  const code = (err as { code?: unknown }).code;
  if (code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return 'unique';
  if (code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return 'foreign_key';
  return null;
}

export function isUniqueViolation(err: unknown): boolean {
  return constraintKind(err) === 'unique';
}

/** Maps a database constraint error to the API error it means, or null for anything else. */
export function databaseErrorToAppError(err: unknown): AppError | null {
  switch (constraintKind(err)) {
    case 'unique':
      return errors.conflict('database conflict');
    case 'foreign_key':
      return errors.notFound();
    default:
      return null;
  }
}

/**
 * PostgreSQL refused a statement while running it, for something its data or a lock wait may
 * cause (data exception 22, constraint 23, a PL/pgSQL raise P0, a deadlock 40P01 or a
 * serialization failure 40001): a statement is atomic, so nothing of it was written. Not a lost
 * connection (the commit may have happened), nor 40003 (statement completion unknown), nor an
 * error of the session or the server. By SQLSTATE alone: the severity is in the server's language.
 */
export function isRefusedStatement(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code } = err as { code?: unknown };
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return false;
  return ['22', '23', 'P0'].includes(code.slice(0, 2)) || code === '40P01' || code === '40001';
}
