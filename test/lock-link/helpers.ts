import type { AppContext } from '../../src/context.js';
import { auditEntriesOf } from '../helpers/locks.js';
import type { TestService } from '../helpers/service.js';

/** The audit types of a lock, oldest first, read straight from the database. */
export async function auditTypes(t: TestService, lockId: string): Promise<Array<{ type: string; actor: string | null }>> {
  return (await auditEntriesOf(t, lockId)).map((row) => ({ type: row.type, actor: row.actor_user_id }));
}

export function count(entries: Array<{ type: string }>, type: string): number {
  return entries.filter((entry) => entry.type === type).length;
}

/**
 * Transactions `ctx`'s database opens while `work` runs (BEGIN … COMMIT; a statement in autocommit
 * is none), counted by wrapping `kysely.transaction` for the while.
 */
export async function transactionsDuring<T>(ctx: Pick<AppContext, 'db'>, work: () => Promise<T>): Promise<{ result: T; transactions: number }> {
  const kysely = ctx.db.kysely;
  const own = Object.getOwnPropertyDescriptor(kysely, 'transaction');
  const original = kysely.transaction.bind(kysely);
  let transactions = 0;
  kysely.transaction = () => {
    transactions += 1;
    return original();
  };
  try {
    return { result: await work(), transactions };
  } finally {
    if (own) Object.defineProperty(kysely, 'transaction', own);
    else delete (kysely as { transaction?: unknown }).transaction;
  }
}
