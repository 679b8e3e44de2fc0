import { compactDecrypt, decodeJwt, decodeProtectedHeader } from 'jose';
import type { Caller } from '../accounts/caller.js';
import type { UserRow } from '../accounts/queries.js';
import { ensureApplicationUser } from '../applications/app-users.js';
import { IDENTITY_JWE, openEncryptionKey } from '../applications/encryption-key.js';
import { findApplication } from '../applications/queries.js';
import type { ThirdPartyTokens } from '../applications/third-party-tokens.js';
import type { AppContext } from '../context.js';
import { errors, isAppError } from '../errors/catalogue.js';

/**
 * Every failure of an `identity` is 400, not 401: the caller's own token is fine, and SDKs take a
 * 401 as "signed out". That includes a JWE made with another application's encryption key, and a
 * token inside it issued by another application.
 */
const refused = (why: string) => errors.badRequest(`identity refused: ${why}`);

async function decrypt(ctx: AppContext, applicationId: string, jwe: string): Promise<string> {
  const application = await findApplication(ctx.db.kysely, applicationId);
  if (!application) throw refused('the application no longer exists');
  const publicJwk = JSON.parse(application.encryption_public_jwk) as { kid: string };
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(jwe).kid;
  } catch {
    throw refused('not a compact JWE');
  }
  if (kid !== undefined && kid !== publicJwk.kid) throw refused("the JWE is not for this application's encryption key");
  try {
    const key = openEncryptionKey(ctx.box, applicationId, application.encryption_private_sealed);
    const { plaintext } = await compactDecrypt(jwe, key, { keyManagementAlgorithms: [IDENTITY_JWE.alg], contentEncryptionAlgorithms: [IDENTITY_JWE.enc] });
    return new TextDecoder().decode(plaintext).trim();
  } catch {
    throw refused(`the JWE does not decrypt with this application's encryption key (${IDENTITY_JWE.alg}, ${IDENTITY_JWE.enc})`);
  }
}

function issuerOf(token: string): string {
  try {
    const { iss } = decodeJwt(token);
    if (typeof iss === 'string') return iss;
  } catch {
    // not a JWT
  }
  throw refused('the decrypted payload is not an auth token');
}

/**
 * The user an `identity` names (spec: directory rule 3): decrypt with the application's key,
 * verify the token inside exactly like a third-party auth token of the same application, and
 * create the user if missing.
 */
export async function userFromIdentity(ctx: AppContext, caller: Caller, jwe: string, tokens: ThirdPartyTokens): Promise<UserRow> {
  if (caller.applicationId === null) throw refused('identity lookups need an application user');
  const token = await decrypt(ctx, caller.applicationId, jwe);
  let verified;
  try {
    verified = await tokens.verify(token, issuerOf(token));
  } catch (err) {
    if (isAppError(err) && err.status === 401) throw refused(err.message);
    throw err;
  }
  if (verified.applicationId !== caller.applicationId) throw refused('the token was issued by another application');
  return ensureApplicationUser(ctx, verified.applicationId, verified.claims);
}
