import type { MemberRole } from '../../src/access/types.js';
import type { LockResponse } from '../../src/locks/schemas.js';
import { inTransaction } from '../../src/db/transaction.js';
import { addMember, removeMembers } from '../../src/sharing/enrolments.js';
import { provisionLock as provision, type ProvisionedLock } from '../../src/locks/provision.js';
import { createSite as create, type SiteInput } from '../../src/sites/service.js';
import type { SiteRow } from '../../src/sites/queries.js';
import { createLegacyUser, createUser, type AnyUser, type LegacyUser, type TestUser, type UserOverrides } from './factories.js';
import type { TestService } from './service.js';

/**
 * Lock factories for black-box tests. Provisioning and membership changes run in-process
 * against the test service's own database (what `latchkey lock provision` and the execute
 * endpoint do); claiming goes through the API.
 */

let counter = 0;
const uniqueName = (prefix: string) => `${prefix} ${process.pid}-${++counter}`;

/** An unowned lock, as `latchkey lock provision` makes it. */
export function provisionLock(t: TestService, options: { name?: string; siteId?: string } = {}): Promise<ProvisionedLock> {
  return provision(t.service.ctx.db.kysely, { name: options.name ?? uniqueName('Lock'), siteId: options.siteId ?? null }, t.service.ctx.now());
}

export interface ClaimedLock extends ProvisionedLock {
  /** The Lock the claim answered with (full shape). */
  lock: LockResponse;
}

/** A lock provisioned and claimed by `user` (POST /device): `user` is its ADMIN. */
export async function claimLock(t: TestService, user: AnyUser, options: { name?: string; siteId?: string } = {}): Promise<ClaimedLock> {
  const provisioned = await provisionLock(t, options);
  const name = options.name ?? uniqueName('Door');
  const res = await t.api.post('/device', { token: user.authToken, body: { key: provisioned.registrationKey, name } });
  if (res.status !== 200) throw new Error(`claim failed: ${res.status} ${res.text}`);
  return { ...provisioned, lock: res.body };
}

/**
 * Marks the user's email verified, as following the emailed link does (without the link): a share
 * to a registered user whose email is not verified is held until they verify it (issue 15).
 * Pending invites (orphans) stay as they are.
 */
export async function verifyEmailDirectly(t: TestService, userId: string): Promise<void> {
  await t.service.ctx.db.kysely.updateTable('users').set({ email_verified: 1 }).where('id', '=', userId).where('orphan', '=', 0).execute();
}

/** A user registered through the API (v3) whose email is verified: shares to them take effect at once. */
export async function createVerifiedUser(t: TestService, overrides: UserOverrides = {}): Promise<TestUser> {
  const user = await createUser(t.api, overrides);
  await verifyEmailDirectly(t, user.userId);
  return user;
}

/** As `createVerifiedUser`, registered with v1 (a legacy key pair). */
export async function createVerifiedLegacyUser(t: TestService, overrides: UserOverrides = {}): Promise<LegacyUser> {
  const user = await createLegacyUser(t.api, overrides);
  await verifyEmailDirectly(t, user.userId);
  return user;
}

/**
 * Enrols `userId` on the lock as `actor` would with ADD_USER (audited, config version bumped).
 * The user's email is verified first unless `unverified` (then the share of a registered user is held).
 */
export async function shareLock(
  t: TestService,
  lockId: string,
  actor: { userId: string },
  userId: string,
  options: { role?: MemberRole; start?: number | null; end?: number | null; unverified?: boolean } = {},
): Promise<void> {
  const ctx = t.service.ctx;
  const { unverified, ...share } = options;
  if (!unverified) await verifyEmailDirectly(t, userId);
  await inTransaction(ctx.db, ctx.logger, (uow) => addMember(ctx, uow, { lockId, actorUserId: actor.userId, userId, ...share }));
}

/** Removes members as `actor` would with REMOVE_USER. */
export async function revokeLock(t: TestService, lockId: string, actor: { userId: string }, userIds: string[]): Promise<void> {
  const ctx = t.service.ctx;
  await inTransaction(ctx.db, ctx.logger, (uow) => removeMembers(ctx, uow, { lockId, actorUserId: actor.userId, userIds }));
}

/** A site, as `latchkey site create` makes it. */
export function createSite(t: TestService, input: Partial<SiteInput> = {}): Promise<SiteRow> {
  return create(t.service.ctx.db.kysely, { name: input.name ?? uniqueName('Site'), ...input }, t.service.ctx.now());
}

/** A lock's audit entries, oldest first, straight from the table the audit trail writes. */
export function auditEntriesOf(t: TestService, lockId: string) {
  return t.service.ctx.db.kysely
    .selectFrom('audit_entries')
    .select(['type', 'actor_user_id', 'subject_user_id', 'rejected', 'message', 'details', 'timestamp'])
    .where('lock_id', '=', lockId)
    .orderBy('seq')
    .execute();
}
