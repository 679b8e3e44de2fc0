import type { Static } from '@sinclair/typebox';
import type { Caller } from '../accounts/caller.js';
import { ensureLegacyPublicKey } from '../accounts/legacy-key.js';
import type { UserRow } from '../accounts/queries.js';
import type { ThirdPartyTokens } from '../applications/third-party-tokens.js';
import type { AppContext } from '../context.js';
import { errors } from '../errors/catalogue.js';
import { userFromIdentity } from './identity.js';
import { findByEmail, findByForeignKey, findByLocalKey, findByTelephone } from './lookups.js';
import type { DirectoryQuery } from './schemas.js';

type Query = Static<typeof DirectoryQuery>;

/** Exactly one key per query (spec: directory rule 4); zero or several is 400. */
export function singleKey(query: Query): { [K in keyof Query]-?: { kind: K; value: NonNullable<Query[K]> } }[keyof Query] {
  const present = (Object.keys(query) as Array<keyof Query>).filter((k) => query[k] !== undefined);
  if (present.length !== 1) throw errors.validation('exactly one of email, telephone, localKey, foreignKey or identity is required');
  const kind = present[0]!;
  return { kind, value: query[kind]! } as ReturnType<typeof singleKey>;
}

/**
 * Finds a user in the caller's namespace (spec: directory rules 1–4): the caller's application,
 * or the direct users for a direct caller. Read-only keys answer 404 for an unknown user;
 * `identity` creates the user. The answer carries the user's legacy public key, made if missing.
 */
export async function queryDirectory(ctx: AppContext, caller: Caller, query: Query, tokens: ThirdPartyTokens): Promise<{ id: string; publicKey: string }> {
  const key = singleKey(query);
  const db = ctx.db.kysely;
  let user: UserRow | undefined;
  switch (key.kind) {
    case 'email':
      user = await findByEmail(db, caller.namespace, key.value);
      break;
    case 'telephone':
      user = await findByTelephone(db, caller.namespace, key.value);
      break;
    case 'localKey':
      user = await findByLocalKey(db, caller.namespace, key.value);
      break;
    case 'foreignKey':
      user = await findByForeignKey(db, caller.namespace, key.value);
      break;
    case 'identity':
      user = await userFromIdentity(ctx, caller, key.value, tokens);
      break;
  }
  if (!user) throw errors.notFound('user');
  return { id: user.id, publicKey: await ensureLegacyPublicKey(ctx, user) };
}

