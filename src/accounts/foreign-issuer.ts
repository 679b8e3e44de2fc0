import type { AppContext } from '../context.js';

/**
 * A token refused because its `iss` is neither ours nor a registered application's: if one of our
 * own keys signed it, another instance runs with another BASE_URL (they must be identical, or a
 * token from one is refused by the others). Warns once per issuer (ServiceTokens.firstSignedByUsAs);
 * the token stays refused.
 */
export async function warnIfSignedByUs(ctx: Pick<AppContext, 'tokens' | 'logger' | 'config'>, token: string, issuer: string): Promise<void> {
  if (!(await ctx.tokens.firstSignedByUsAs(token, issuer))) return;
  ctx.logger.warn({ issuer: issuer.slice(0, 200), baseUrl: ctx.config.baseUrl }, 'a token signed by this service carries another issuer: BASE_URL must be identical on every instance');
}
