import type { Static } from '@sinclair/typebox';
import type { Caller } from './caller.js';
import type { UserRow } from './queries.js';
import type { AccountResponse } from './schemas.js';

/** The account as the authentication hook loaded it, for this very request. */
export function presentCallerAccount(caller: Caller): Static<typeof AccountResponse> {
  return { publicKey: caller.publicKey, email: caller.email, displayName: caller.displayName, emailVerified: caller.emailVerified };
}

export function presentAccount(user: UserRow): Static<typeof AccountResponse> {
  return { publicKey: user.public_key, email: user.email, displayName: user.display_name, emailVerified: user.email_verified === 1 };
}
