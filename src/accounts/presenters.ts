import type { Static } from '@sinclair/typebox';
import type { UserRow } from './queries.js';
import type { AccountResponse } from './schemas.js';

export function presentAccount(user: UserRow): Static<typeof AccountResponse> {
  return { publicKey: user.public_key, email: user.email, displayName: user.display_name, emailVerified: user.email_verified === 1 };
}
