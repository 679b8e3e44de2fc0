import type { AppContext } from '../context.js';
import { createLogoStorage, type EmbeddedLogoStorage, type LogoStorage } from '../cdn/storage.js';
import { CorsOrigins } from './cors-origins.js';
import { IssuerKeyCache } from './issuer-keys.js';
import { findApplication } from './queries.js';
import type { ApplicationChanges } from './policy.js';
import { ThirdPartyTokens } from './third-party-tokens.js';

/** Bus channel on which instances tell each other that an application's credentials changed. */
export const APPLICATIONS_CHANGED = 'applications.changed';

/** The long-lived parts of the applications feature, built once per process by the composition root. */
export interface ApplicationsPlatform extends ApplicationChanges {
  /** Verifies third-party tokens; handed to the authentication hook. */
  tokens: ThirdPartyTokens;
  /** The registered browser origins, for CORS. */
  cors: CorsOrigins;
  /** Where logo uploads go (embedded or S3). */
  logos: LogoStorage;
  /** The embedded store, which also answers PUT/GET /cdn/*. */
  embedded: EmbeddedLogoStorage;
  /** Whether the application exists (an upload to the embedded CDN is for an existing one). */
  exists(applicationId: string): Promise<boolean>;
}

export function createApplicationsPlatform(ctx: AppContext): ApplicationsPlatform {
  const issuers = new IssuerKeyCache(ctx.db.kysely);
  const tokens = new ThirdPartyTokens(ctx, issuers);
  const cors = new CorsOrigins(ctx.db.kysely);
  const { storage, embedded } = createLogoStorage(ctx);
  const forget = () => {
    issuers.clear();
    tokens.forget();
    cors.clear();
  };
  const unsubscribe = ctx.bus.subscribe(APPLICATIONS_CHANGED, forget);
  // Whatever was announced while the bus was down went unheard here: what is held may be stale.
  let stopped = false;
  ctx.bus.onConnectionChange(() => {
    if (!stopped) forget();
  });
  ctx.closers.push(() => {
    stopped = true;
    unsubscribe();
  });
  return {
    tokens,
    cors,
    logos: storage,
    embedded,
    exists: async (applicationId) => (await findApplication(ctx.db.kysely, applicationId)) !== undefined,
    changed(applicationId) {
      // Here at once; elsewhere when the bus delivers (a message lost while an instance's bus was
      // down: that instance empties its caches when the bus returns; the caches' TTL bounds the rest).
      forget();
      return ctx.bus.publish(APPLICATIONS_CHANGED, { applicationId }).catch((err: unknown) => ctx.logger.warn({ err, applicationId }, 'could not announce an application change'));
    },
  };
}
