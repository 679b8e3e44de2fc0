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
