import { compactVerify, decodeProtectedHeader } from 'jose';
import type { AppContext } from '../context.js';

const KID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const warned = new WeakMap<object, Set<string>>();

/**
 * A token refused because its `iss` is neither ours nor a registered application's: if one of our
 * own keys signed it, another instance runs with another BASE_URL (they must be identical, or a
 * token from one is refused by the others). Warns once per issuer; the token stays refused.
 */
export async function warnIfSignedByUs(ctx: Pick<AppContext, 'keys' | 'logger' | 'config'>, token: string, issuer: string): Promise<void> {
  const seen = warned.get(ctx.keys) ?? new Set<string>();
  warned.set(ctx.keys, seen);
  if (seen.has(issuer) || seen.size > 100) return;
  try {
    const { kid } = decodeProtectedHeader(token);
    const key = typeof kid === 'string' && KID.test(kid) ? await ctx.keys.publicKey(kid) : null;
    if (!key) return;
    await compactVerify(token, key, { algorithms: ['EdDSA'] });
  } catch {
    return;
  }
  seen.add(issuer);
  ctx.logger.warn({ issuer: issuer.slice(0, 200), baseUrl: ctx.config.baseUrl }, 'a token signed by this service carries another issuer: BASE_URL must be identical on every instance');
}
