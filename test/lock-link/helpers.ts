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
 * Transactions (BEGIN … COMMIT; a statement in autocommit is none) opened through the context
 * `work` is handed: `ctx` with a database whose `kysely.transaction` is counted. Only what `work`
 * does through it counts, not the service's background work on the same database meanwhile (the
 * checkpoint signer's timer, the sweeps), which a count on the shared Kysely instance took in.
 */
export async function transactionsDuring<C extends Pick<AppContext, 'db'>, T>(ctx: C, work: (counted: C) => Promise<T>): Promise<{ result: T; transactions: number }> {
  let transactions = 0;
  const kysely = new Proxy(ctx.db.kysely, {
    get(target, property) {
      if (property === 'transaction') {
        return () => {
          transactions += 1;
          return target.transaction();
        };
      }
      const value: unknown = Reflect.get(target, property);
      // Kysely's methods read private fields: called on the instance, not on the proxy.
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  const result = await work({ ...ctx, db: { ...ctx.db, kysely } });
  return { result, transactions };
}
