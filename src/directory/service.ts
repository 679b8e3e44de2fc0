import type { Static } from '@sinclair/typebox';
import type { Caller } from '../accounts/caller.js';
import { ensureLegacyPublicKey } from '../accounts/legacy-key.js';
import type { UserRow } from '../accounts/queries.js';
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
 * Finds a user in the caller's namespace (spec: directory rules 1–4): the caller's application,
 * or the direct users for a direct caller. Read-only keys answer 404 for an unknown user;
 * `identity` creates the user. The answer carries the user's legacy public key, made if missing.
 */
export async function queryDirectory(ctx: AppContext, caller: Caller, query: Query, tokens: ThirdPartyTokens): Promise<{ id: string; publicKey: string }> {
  const key = singleKey(query);
  const user = key.kind === 'identity' ? await userFromIdentity(ctx, caller, key.value, tokens) : await LOOKUPS[key.kind](ctx.db.kysely, caller.namespace, key.value);
  if (!user) throw errors.notFound('user');
  return { id: user.id, publicKey: await ensureLegacyPublicKey(ctx, user) };
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
 * asked; unknown values are left out rather than failing the whole query. Each user shows only the
 * keys they were found by (which the caller already knew): a user id or an email must not reveal
 * the rest of a user's contact details (docs/decisions.md).
 */
export async function queryDirectoryBatch(ctx: AppContext, caller: Caller, query: Query): Promise<Static<typeof BatchDirectoryResult>[]> {
  const found = new Map<string, { user: UserRow; by: Set<LookupKind> }>();
  for (const { kind, value } of batchValues(query)) {
    const user = await LOOKUPS[kind](ctx.db.kysely, caller.namespace, value);
    if (!user) continue;
    const entry = found.get(user.id) ?? { user, by: new Set<LookupKind>() };
    entry.by.add(kind);
    found.set(user.id, entry);
  }
  const results: Static<typeof BatchDirectoryResult>[] = [];
  for (const { user, by } of found.values()) {
    results.push({
      id: user.id,
      ...(by.has('email') && user.email ? { email: user.email } : {}),
      ...(by.has('foreignKey') && user.external_id ? { foreignKey: user.external_id } : {}),
      ...(by.has('telephone') && user.telephone ? { phone: user.telephone } : {}),
      publicKey: await ensureLegacyPublicKey(ctx, user),
    });
  }
  return results;
}
