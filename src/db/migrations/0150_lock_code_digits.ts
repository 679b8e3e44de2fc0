import type { Kysely, Migration } from 'kysely';

/**
 * How many digits a lock's keypad takes (device protocol 1.5, `device.codeDigits` in `online`;
 * issue 30 point 3): a Matter lock's MinPINCodeLength/MaxPINCodeLength, a Z-Wave lock's User Code
 * limits. Null until the lock says; then only the range every supported lock takes applies.
 */
export function lockCodeDigitsMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('locks').addColumn('code_digits_min', 'integer').execute();
      await db.schema.alterTable('locks').addColumn('code_digits_max', 'integer').execute();
    },
  };
}
