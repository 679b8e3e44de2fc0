import type { LRUCache } from 'lru-cache';
import { lruCache } from '../cache/lru.js';

interface Entry<T> {
  token: string;
  value: T;
  /** Unix seconds: the token's exp. */
  expiresAt: number;
}

/** Characters of the signature's end used as the key: 132 bits, so distinct tokens do not share one. */
const KEY_LENGTH = 22;

/**
 * Tokens verified before, remembered until they expire so a request pays a signature check once
 * per token. Keyed by the end of the token (its signature) rather than the whole of it: hashing
 * a 600-character key cost more than the rest of the request's authentication (docs/decisions.md,
 * Performance). A hit must still equal the whole token, so a forged ending only misses.
 */
export class VerifiedTokens<T> {
  private readonly entries: LRUCache<string, Entry<T>>;

  constructor(max: number) {
    this.entries = lruCache(max);
  }

  get(token: string, now: number): T | undefined {
    const entry = this.entries.get(token.slice(-KEY_LENGTH));
    return entry !== undefined && entry.token === token && entry.expiresAt > now ? entry.value : undefined;
  }

  set(token: string, value: T, expiresAt: number): void {
    this.entries.set(token.slice(-KEY_LENGTH), { token, value, expiresAt });
  }

  clear(): void {
    this.entries.clear();
  }
}
