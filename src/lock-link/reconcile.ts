import type { AppContext } from '../context.js';
import { TurnTimer } from '../db/turns.js';
import { committedConfigVersion } from '../locks/config.js';
import { publishLockConfig, republishAllConfigs, type RepublishPace } from './config-sync.js';

/**
 * Reconciliation (issue 16, docs/device-protocol.md §3): a lock's config reaches it whatever the
 * broker forgets. Three paths, each enough alone for most cases:
 *
 * - a lock coming online states the config version it holds; older or none → its config again;
 * - on every (re)connection to the broker, every lock's config again (paced);
 * - a periodic sweep, the same, for whatever the two above missed (a lost publish, a broker
 *   restored from a snapshot while we stayed connected to a peer of its cluster).
 */

type ReconcileContext = Pick<AppContext, 'db' | 'logger' | 'bus' | 'link' | 'box' | 'now' | 'instanceName'>;

export interface ReconcileOptions {
  pace: RepublishPace;
  /** Seconds between sweeps; 0 = none. */
  sweepSeconds: number;
  /** One lock's config is re-sent at most once in this many milliseconds on its own say-so (a lock repeating a stale version cannot flood the broker). */
  perLockCooldownMs?: number;
  /**
   * Whether the cluster takes turns to sweep (src/db/turns.ts): with an external broker, which
   * every instance publishes to, one instance's sweep is the cluster's (issue 33 point 2). False:
   * this instance sweeps (the embedded broker, whose locks only this instance reaches).
   */
  sweepInTurn: boolean;
}

/** The cluster's turn to sweep the configs, with an external broker. */
export const CONFIG_SWEEP_TURN = 'config-sweep';

export class ConfigReconciler {
  private running: Promise<void> | null = null;
  private pendingReason: string | null = null;
  private stopped = false;
  private readonly lastSent = new Map<string, number>();
  /** The version each lock last said it holds and when it was found current: a lock says it in its `online` and again in the state that follows. */
  private readonly lastFoundCurrent = new Map<string, { version: number; at: number }>();
  private readonly sweep: TurnTimer;

  constructor(private readonly ctx: ReconcileContext, private readonly options: ReconcileOptions) {
    this.sweep = new TurnTimer(ctx, {
      turn: options.sweepInTurn ? CONFIG_SWEEP_TURN : null,
      intervalMs: options.sweepSeconds * 1000,
      what: 'the config sweep',
      run: () => this.republishAll('sweep'),
      // Off the broker, its publishes would go nowhere: another instance sweeps meanwhile.
      eligible: () => ctx.link.brokerStatus().connected,
    });
  }

  /** Sweeps this instance ran from its timer: what tells a test which instance sweeps. */
  get sweptHere(): number {
    return this.sweep.runsHere;
  }

  /** Starts the sweep; `republishNow`: every config at once too (the broker may have forgotten them). */
  start(republishNow = true): void {
    if (republishNow) this.republishAll('connected');
    this.sweep.start();
  }

  /** Republishes every config; one run at a time (a request during a run starts one more after it). */
  republishAll(reason: string): void {
    if (this.stopped) return;
    if (this.running) {
      this.pendingReason = reason;
      return;
    }
    const started = Date.now();
    this.running = republishAllConfigs(this.ctx, () => this.stopped, this.options.pace)
      .then((count) => this.ctx.logger.info({ reason, count, ms: Date.now() - started }, 'lock configs republished'))
      .catch((err: unknown) => this.ctx.logger.error({ err, reason }, 'republishing lock configs failed'))
      .finally(() => {
        this.running = null;
        const next = this.pendingReason;
        this.pendingReason = null;
        if (next !== null) this.republishAll(next);
      });
  }

  /** A lock said it holds `version` (null: none or unsaid): its config again when the database's is newer. */
  async checkVersion(lockId: string, version: number | null): Promise<boolean> {
    if (this.stopped) return false;
    const now = Date.now();
    const cooldownMs = this.options.perLockCooldownMs ?? 2000;
    // Said again within the cooldown and current then: a config made since is published by the config sync anyway.
    const found = this.lastFoundCurrent.get(lockId);
    if (found !== undefined && found.version === version && now - found.at < cooldownMs) return false;
    const current = await committedConfigVersion(this.ctx.db, lockId);
    if (current !== undefined && version !== null && version >= current) {
      // Kept in the order found, so the expired are at the front: a fleet's storm leaves no entry behind.
      this.lastFoundCurrent.delete(lockId);
      this.lastFoundCurrent.set(lockId, { version, at: now });
      for (const [id, entry] of this.lastFoundCurrent) {
        if (now - entry.at < cooldownMs) break;
        this.lastFoundCurrent.delete(id);
      }
      return false;
    }
    if (current === undefined) return false;
    const last = this.lastSent.get(lockId);
    if (last !== undefined && now - last < cooldownMs) return false;
    if (this.lastSent.size > 100_000) this.lastSent.clear();
    this.lastSent.set(lockId, now);
    this.ctx.logger.info({ lockId, lockVersion: version, version: current }, 'lock holds an older config or none: republishing it');
    return publishLockConfig(this.ctx, lockId);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.sweep.stop(() => this.running ?? Promise.resolve());
  }
}
