import type { Static } from '@sinclair/typebox';
import { administersAnyLock } from '../access/active-admin.js';
import type { Caller } from '../accounts/caller.js';
import { certifiedKeyOf } from '../accounts/certified-keys.js';
import { ensureLegacyPublicKey } from '../accounts/legacy-key.js';
import { DIRECT_NAMESPACE, type UserRow } from '../accounts/queries.js';
import type { ThirdPartyTokens } from '../applications/third-party-tokens.js';
import type { AppContext } from '../context.js';
import type { Executor } from '../db/transaction.js';
import { errors } from '../errors/catalogue.js';
import { userFromIdentity } from './identity.js';
import { findByEmail, findByForeignKey, findByLocalKey, findByTelephone } from './lookups.js';
import { MAX_BATCH_KEYS, type BatchDirectoryResult, type DirectoryQuery } from './schemas.js';

type Query = Static<typeof DirectoryQuery>;
type LookupKind = 'email' | 'telephone' | 'localKey' | 'foreignKey';
const LOOKUP_KINDS: readonly LookupKind[] = ['email', 'telephone', 'localKey', 'foreignKey'];

const LOOKUPS: Record<LookupKind, (db: Executor, namespace: string, value: string) => Promise<UserRow | undefined>> = {
  email: findByEmail,
  telephone: findByTelephone,
  localKey: findByLocalKey,
  foreignKey: findByForeignKey,
};

/** Exactly one key per query (spec: directory rule 4); zero or several is 400. */
export function singleKey(query: Query): { kind: LookupKind | 'identity'; value: string } {
  const present = (Object.keys(query) as Array<keyof Query>).filter((k) => query[k] !== undefined);
  if (present.length !== 1) throw errors.validation('exactly one of email, telephone, localKey, foreignKey or identity is required');
  const kind = present[0]!;
  const value = query[kind];
  if (typeof value !== 'string') throw errors.validation(`${kind} must be a string (a list needs Accept: application/vnd.doordeck.api-v2+json)`);
  return { kind, value };
}

/**
 * Who may look people up (docs/decisions.md, issue 27): an application's user within their
 * application; a direct user only while they administer a lock, and each value asked counts
 * against the same daily allowance as their invitations (RATE_INVITES_PER_USER). Anyone else
 * is 403, so the directory is no email oracle for every account.
 */
async function admitLookups(ctx: AppContext, caller: Caller, values: number): Promise<void> {
  if (caller.namespace !== DIRECT_NAMESPACE) return;
  if (!(await administersAnyLock(ctx.db.kysely, caller.userId, ctx.now()))) throw errors.forbidden('only lock administrators can look people up');
  await ctx.limits.invitationsPerUser.consume(caller.userId, values);
}

/**
 * The public key a look-up shows: the legacy RSA key, else the Ed25519 key the user had certified
 * last (as the users lists show it). Made only for the caller themselves: a look-up never writes
 * to someone else's row nor spends a key generation on them. null: a user with no key yet.
 */
async function shownPublicKey(ctx: AppContext, caller: Caller, user: UserRow): Promise<string | null> {
  if (user.id === caller.userId) return ensureLegacyPublicKey(ctx, user);
  return user.public_key ?? (await certifiedKeyOf(ctx.db.kysely, user.id));
}

/**
 * Finds a user in the caller's namespace (spec: directory rules 1–4): the caller's application,
 * or the direct users for a direct caller. Read-only keys answer 404 for an unknown user, and for
 * one who has no public key yet; `identity` creates the user and their key (the application
 * presents that user's own token: a sign-in on their behalf).
 */
export async function queryDirectory(ctx: AppContext, caller: Caller, query: Query, tokens: ThirdPartyTokens): Promise<{ id: string; publicKey: string }> {
  const key = singleKey(query);
  if (key.kind === 'identity') {
    const user = await userFromIdentity(ctx, caller, key.value, tokens);
    return { id: user.id, publicKey: await ensureLegacyPublicKey(ctx, user) };
  }
  await admitLookups(ctx, caller, 1);
  const user = await LOOKUPS[key.kind](ctx.db.kysely, caller.namespace, key.value);
  const publicKey = user ? await shownPublicKey(ctx, caller, user) : null;
  if (!user || publicKey === null) throw errors.notFound('user');
  return { id: user.id, publicKey };
}

/** The values of a v2 query, key by key in a fixed order; a single string counts as a list of one. */
function batchValues(query: Query): Array<{ kind: LookupKind; value: string }> {
  if (query.identity !== undefined) throw errors.validation('identity is not a batch key: ask for it with a v1 query');
  const values = LOOKUP_KINDS.flatMap((kind) => {
    const given = query[kind];
    const list = given === undefined ? [] : typeof given === 'string' ? [given] : given;
    return list.map((value) => ({ kind, value }));
  });
  if (values.length === 0) throw errors.validation('at least one of email, telephone, localKey or foreignKey is required');
  if (values.length > MAX_BATCH_KEYS) throw errors.validation(`at most ${MAX_BATCH_KEYS} values in all`);
  return values;
}

/**
 * v2 (the SDK's batch lookup): the users found in the caller's namespace, each once, in the order
 * asked; unknown values (and users with no public key yet) are left out rather than failing the whole query. Each user shows only the
 * keys they were found by (which the caller already knew): a user id or an email must not reveal
 * the rest of a user's contact details (docs/decisions.md).
 */
export async function queryDirectoryBatch(ctx: AppContext, caller: Caller, query: Query): Promise<Static<typeof BatchDirectoryResult>[]> {
  const values = batchValues(query);
  await admitLookups(ctx, caller, values.length);
  const found = new Map<string, { user: UserRow; by: Set<LookupKind> }>();
  for (const { kind, value } of values) {
    const user = await LOOKUPS[kind](ctx.db.kysely, caller.namespace, value);
    if (!user) continue;
    const entry = found.get(user.id) ?? { user, by: new Set<LookupKind>() };
    entry.by.add(kind);
    found.set(user.id, entry);
  }
  const results: Static<typeof BatchDirectoryResult>[] = [];
  for (const { user, by } of found.values()) {
    const publicKey = await shownPublicKey(ctx, caller, user);
    if (publicKey === null) continue;
    results.push({
      id: user.id,
      ...(by.has('email') && user.email ? { email: user.email } : {}),
      ...(by.has('foreignKey') && user.external_id ? { foreignKey: user.external_id } : {}),
      ...(by.has('telephone') && user.telephone ? { phone: user.telephone } : {}),
      publicKey,
    });
  }
  return results;
}
