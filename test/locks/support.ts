import type { TestService } from '../helpers/service.js';

export async function lockRow(t: TestService, lockId: string) {
  return t.service.ctx.db.kysely.selectFrom('locks').selectAll().where('id', '=', lockId).executeTakeFirstOrThrow();
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A well-formed id nobody has. */
export const UNKNOWN_ID = '00000000-0000-7000-8000-000000000000';
