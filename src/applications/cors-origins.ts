import type { Executor } from '../db/transaction.js';
import { listCorsOrigins } from './queries.js';

/**
 * The set of browser origins any application registered, for the CORS `origin` check. Loaded
 * whole (one small query) and kept for `ttlMs`; dropped at once when this instance changes an
 * origin, and on other instances when the change reaches them on the event bus (else after `ttlMs`;
 * an instance whose bus was down empties it when the bus returns: src/applications/platform.ts).
 */
export class CorsOrigins {
  private origins: Promise<Set<string>> | null = null;
  private loadedAt = 0;

  constructor(
    private readonly db: Executor,
    private readonly clock: () => number = Date.now,
    private readonly ttlMs = 30_000,
  ) {}

  /** Exact match on scheme://host[:port], as browsers send it in the Origin header. */
  async allows(origin: string | undefined): Promise<boolean> {
    if (!origin || origin === 'null') return false;
    return (await this.current()).has(origin.toLowerCase());
  }

  clear(): void {
    this.origins = null;
  }

  private current(): Promise<Set<string>> {
    if (!this.origins || this.clock() - this.loadedAt > this.ttlMs) {
      this.loadedAt = this.clock();
      const loading = listCorsOrigins(this.db).then((list) => new Set(list));
      loading.catch(() => {
        if (this.origins === loading) this.origins = null;
      });
      this.origins = loading;
    }
    return this.origins;
  }
}
