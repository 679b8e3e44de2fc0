/**
 * The tokens a lock has already acted on, each remembered until it expires (a token past its
 * `exp` is refused anyway, so forgetting it then is safe). A real lock would keep this in
 * non-volatile memory; the simulator keeps it in memory for its lifetime.
 */
export class ReplayMemory {
  private readonly seen = new Map<string, number>();

  constructor(private readonly maxEntries = 100_000) {}

  /**
   * Records `key` until `expiresAt` (Unix seconds): 'replayed' when it is already recorded and
   * has not expired, 'full' when memory holds only live tokens (refusing is the safe failure).
   */
  remember(key: string, expiresAt: number, now: number): 'new' | 'replayed' | 'full' {
    const until = this.seen.get(key);
    if (until !== undefined && until > now) return 'replayed';
    if (this.seen.size >= this.maxEntries) this.forgetExpired(now);
    if (this.seen.size >= this.maxEntries) return 'full';
    this.seen.set(key, expiresAt);
    return 'new';
  }

  private forgetExpired(now: number): void {
    for (const [key, until] of this.seen) if (until <= now) this.seen.delete(key);
  }
}
