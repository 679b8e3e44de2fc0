import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import { isUniqueViolation } from '../db/errors.js';

const NAME = 'cdn-upload-hmac';

/**
 * The HMAC key for embedded upload URLs: 32 random bytes kept sealed in `sealed_secrets`, so every
 * instance sharing the database accepts the URLs any of them signed. Created on first use.
 */
export async function loadUploadSecret(ctx: AppContext): Promise<Buffer> {
  const context = `sealed-secret:${NAME}`;
  const existing = await ctx.db.kysely.selectFrom('sealed_secrets').select('value_sealed').where('name', '=', NAME).executeTakeFirst();
  if (existing) return ctx.box.open(existing.value_sealed, context);
  const secret = randomBytes(32);
  try {
    await ctx.db.kysely.insertInto('sealed_secrets').values({ name: NAME, value_sealed: ctx.box.seal(secret, context), created: ctx.now() }).execute();
    return secret;
  } catch (err) {
    // Another instance created it first: use theirs.
    if (!isUniqueViolation(err)) throw err;
    return loadUploadSecret(ctx);
  }
}
