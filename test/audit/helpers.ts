import { recordAuditNow, type AuditEntry, type AuditInput } from '../../src/audit/record.js';
import type { AppContext } from '../../src/context.js';
import { provisionLock } from '../helpers/locks.js';
import type { TestService } from '../helpers/service.js';

type Role = 'ADMIN' | 'USER';

/**
 * A provisioned lock whose members are written straight into `lock_members`, so that the only
 * audit entries on it are the ones a test records itself (the claim and share flows, which audit
 * on their own, are covered by flows.test.ts).
 */
export async function lockWithMembers(t: TestService, members: Record<string, Role | { role: Role; end: number }> = {}): Promise<string> {
  const ctx = t.service.ctx;
  const { id } = await provisionLock(t);
  const now = ctx.now();
  for (const [userId, member] of Object.entries(members)) {
    const { role, end } = typeof member === 'string' ? { role: member, end: null } : member;
    await ctx.db.kysely.insertInto('lock_members').values({ lock_id: id, user_id: userId, role, starts_at: null, ends_at: end, alias: null, colour: null, created: now, updated: now }).execute();
  }
  return id;
}

/** Records an entry as of Unix time `at`, through the real recorder. */
export function recordAt(ctx: AppContext, at: number, input: AuditInput): Promise<AuditEntry> {
  return recordAuditNow({ ...ctx, now: () => at }, input);
}
