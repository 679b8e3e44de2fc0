import type { TestService } from '../helpers/service.js';

/** A lock's audit entries, oldest first, straight from the table the audit trail writes. */
export function auditEntriesOf(t: TestService, lockId: string) {
  return t.service.ctx.db.kysely
    .selectFrom('audit_entries')
    .select(['type', 'actor_user_id', 'subject_user_id', 'rejected', 'message', 'details'])
    .where('lock_id', '=', lockId)
    .orderBy('seq')
    .execute();
}

export async function lockRow(t: TestService, lockId: string) {
  return t.service.ctx.db.kysely.selectFrom('locks').selectAll().where('id', '=', lockId).executeTakeFirstOrThrow();
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A well-formed id nobody has. */
export const UNKNOWN_ID = '00000000-0000-7000-8000-000000000000';
