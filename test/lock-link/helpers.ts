import { auditEntriesOf } from '../helpers/locks.js';
import type { TestService } from '../helpers/service.js';

/** The audit types of a lock, oldest first, read straight from the database. */
export async function auditTypes(t: TestService, lockId: string): Promise<Array<{ type: string; actor: string | null }>> {
  return (await auditEntriesOf(t, lockId)).map((row) => ({ type: row.type, actor: row.actor_user_id }));
}

export function count(entries: Array<{ type: string }>, type: string): number {
  return entries.filter((entry) => entry.type === type).length;
}
