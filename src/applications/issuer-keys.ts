import type { KeyObject } from 'node:crypto';
import type { LRUCache } from 'lru-cache';
import { lruCache } from '../cache/lru.js';
import type { Executor } from '../db/transaction.js';
import { algorithmsFor, importPublicKey, type PublicJwk } from './auth-keys.js';
import { findIssuerKeys } from './queries.js';

export interface VerificationKey {
  kid: string;
  key: KeyObject;
  /** The JWS algorithms this key may verify (by key type and curve, or its own alg). */
  algorithms: string[];
}

/** The application behind a registered issuer, and the only keys its tokens may be signed with. */
export interface IssuerKeys {
  applicationId: string;
  keys: Map<string, VerificationKey>;
}

type Entry = { found: IssuerKeys | null };

/**
 * Issuer → application keys, cached briefly (unknown issuers too, so junk tokens cost no query).
 * This instance drops the cache as soon as a key, issuer or application changes; other instances
 * hear of it on the event bus (Redis when configured), and each drops it again whenever its bus
 * link goes down or comes back (src/applications/platform.ts), since announcements made meanwhile
 * went unheard. So another instance may accept a removed key for up to `ttlMs` (30 seconds by
 * default) only while its bus is down, or when there is no shared bus at all.
 */
export class IssuerKeyCache {
  private readonly cache: LRUCache<string, Promise<Entry>>;

  constructor(
    private readonly db: Executor,
    ttlMs = 30_000,
  ) {
    this.cache = lruCache(10_000, { ttl: ttlMs });
  }

  async lookup(issuer: string): Promise<IssuerKeys | null> {
    let pending = this.cache.get(issuer);
    if (!pending) {
      pending = this.load(issuer);
      this.cache.set(issuer, pending);
      pending.catch(() => this.cache.delete(issuer));
    }
    return (await pending).found;
  }

  clear(): void {
    this.cache.clear();
  }

  private async load(issuer: string): Promise<Entry> {
    const found = await findIssuerKeys(this.db, issuer);
    if (!found) return { found: null };
    const keys = new Map<string, VerificationKey>();
    for (const row of found.keys) {
      const jwk = JSON.parse(row.public_jwk) as PublicJwk;
      keys.set(row.kid, { kid: row.kid, key: importPublicKey(jwk), algorithms: algorithmsFor(jwk) });
    }
    return { found: { applicationId: found.applicationId, keys } };
  }
}
