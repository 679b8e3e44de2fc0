/** A limit on how often something may happen per key (in this process, or shared through Redis). */
export interface RateLimit {
  /** Counts one event for `key`; throws 429 with Retry-After when the limit is exceeded. */
  consume(key: string, points?: number): Promise<void>;
  /**
   * Counts one event for `key` at once when the counts are this process's own (throwing 429 like
   * `consume`); false, counting nothing, when they are shared through Redis and `consume` must be awaited.
   */
  consumeHere(key: string): boolean;
  /** Forgets `key` (e.g. failed logins after a successful one). */
  reset(key: string): Promise<void>;
  /** Gives back `points` counted for `key` (an attempt counted beforehand that proved harmless). */
  refund(key: string, points?: number): Promise<void>;
  /** Throws 429 if `key` is already over the limit, without counting. */
  check(key: string): Promise<void>;
}
