import type { TestService } from '../helpers/service.js';
import { eventually } from '../helpers/eventually.js';

/** Polls `check` until it returns a value other than undefined; fails after 5 s. */

/** The audit types of a lock, oldest first, read straight from the database. */
export async function auditTypes(t: TestService, lockId: string): Promise<Array<{ type: string; actor: string | null }>> {
  const rows = await t.service.ctx.db.kysely.selectFrom('audit_entries').select(['type', 'actor_user_id']).where('lock_id', '=', lockId).orderBy('seq').execute();
  return rows.map((row) => ({ type: row.type, actor: row.actor_user_id }));
}

export function count(entries: Array<{ type: string }>, type: string): number {
  return entries.filter((entry) => entry.type === type).length;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export { eventually };
