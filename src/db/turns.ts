import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { EventBus } from '../bus/event-bus.js';
import type { DatabaseSchema } from './schema.js';

/**
 * Turns of the cluster (migration 0240): work that one instance does for all (the audit
 * checkpoint's signature, the alarm sweep), held by whoever claimed it until `expires_at`.
 */
export interface ClusterTurnsTable {
  name: string;
  /** The instance holding it (`instanceName()`). */
  holder: string;
  /** Unix seconds, by the holder's clock when it claimed or renewed the turn. */
  expires_at: number;
}

export interface TurnTables {
  cluster_turns: ClusterTurnsTable;
}

/** The bus channel on which an instance giving up a turn says so ({ name, holder }). */
const TURNS_CHANNEL = 'cluster-turns';

/** This process's name as a holder of turns: host and pid for the operator reading the table, and a random part for uniqueness. */
export function instanceName(): string {
  return `${hostname()}:${process.pid}:${randomBytes(6).toString('base64url')}`;
}

/**
 * One turn of the cluster, as one instance sees it: a row (name, holder, expiry) claimed with one
 * conditional upsert, renewed by its holder while it works, taken over by another instance once
 * it expires (the holder crashed or fell silent) or is released (the holder stopped). What it
 * last learnt is kept in memory, so a look costs no statement while the answer is certain: its
 * own turn with more than half of its length left, or another's not yet expired. A holder that
 * stops gives its turn up in the row and says so on the bus: the others forget what they knew
 * of it and the next to look takes it at once, not at the end of the turn. The expiry is
 * read by each instance's own clock (ctx.now): clocks apart by more than the turn's length would
 * let two instances hold it at once, so the work done in turn must stay safe when done twice
 * (both uses are: a checkpoint is one row per tree size, an alarm one open row per lock and kind).
 */
export class ClusterTurn {
  private holder: string | null = null;
  private expiresAt = 0;
  private readonly freed: Array<() => void> = [];
  private readonly unsubscribe: () => void;

  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    readonly name: string,
    readonly me: string,
    /** The turn's length: how long a silent holder keeps it from the others. */
    private readonly seconds: number,
    private readonly now: () => number,
    /** Where holders say they gave the turn up (none: the others learn it at its expiry). */
    private readonly bus?: EventBus,
  ) {
    this.unsubscribe = bus?.subscribe(TURNS_CHANNEL, (message) => {
      const given = message as { name?: unknown; holder?: unknown } | null;
      if (given?.name !== this.name || given.holder === this.me) return;
      if (this.holder === given.holder) [this.holder, this.expiresAt] = [null, 0];
      for (const listener of this.freed) listener();
    }) ?? (() => undefined);
  }

  /** Calls `listener` when another instance says it gave the turn up. */
  onFreed(listener: () => void): void {
    this.freed.push(listener);
  }

  /** Whether this instance held the turn at its last look (no statement). */
  held(): boolean {
    return this.holder === this.me && this.expiresAt > this.now();
  }

  /** When another instance's turn, as last seen, runs out (Unix seconds); null when this instance holds it or knows of no holder. */
  othersUntil(): number | null {
    return this.holder !== null && this.holder !== this.me && this.expiresAt > this.now() ? this.expiresAt : null;
  }

  /** When another instance last claimed or renewed the turn, as last seen (its expiry less the turn's length); null when this instance holds it or knows of no holder. */
  othersSince(): number | null {
    return this.holder !== null && this.holder !== this.me ? this.expiresAt - this.seconds : null;
  }

  /**
   * Whether this instance holds the turn: from memory while that is certain, else asked of the
   * database (one statement, which claims or renews the turn when it is free or ours).
   */
  async take(): Promise<boolean> {
    const now = this.now();
    if (this.holder === this.me && this.expiresAt - now > this.seconds / 2) return true;
    if (this.othersUntil() !== null) return false;
    return this.claim(now);
  }

  /** Claims the turn if it is free or ours (renewing it), else learns who holds it until when: one statement. */
  async claim(now = this.now()): Promise<boolean> {
    const ours = sql<boolean>`cluster_turns.holder = ${this.me} OR cluster_turns.expires_at <= ${now}`;
    const row = await this.db
      .insertInto('cluster_turns')
      .values({ name: this.name, holder: this.me, expires_at: now + this.seconds })
      .onConflict((conflict) => conflict.column('name').doUpdateSet({
        holder: sql<string>`CASE WHEN ${ours} THEN excluded.holder ELSE cluster_turns.holder END`,
        expires_at: sql<number>`CASE WHEN ${ours} THEN excluded.expires_at ELSE cluster_turns.expires_at END`,
      }))
      .returning(['holder', 'expires_at'])
      .executeTakeFirstOrThrow();
    this.holder = row.holder;
    this.expiresAt = Number(row.expires_at);
    return this.holder === this.me;
  }

  /** Gives the turn up for good (a clean stop): the next instance to look takes it at once, not at its expiry. */
  async release(): Promise<void> {
    this.unsubscribe();
    await this.giveUp();
  }

  /** Gives the turn up for now, if this instance holds it (it may take it again later): the next instance to look takes it at once. */
  async giveUp(): Promise<void> {
    if (this.holder !== this.me) return;
    this.holder = null;
    this.expiresAt = 0;
    await this.db.updateTable('cluster_turns').set({ expires_at: 0 }).where('name', '=', this.name).where('holder', '=', this.me).execute();
    await this.bus?.publish(TURNS_CHANNEL, { name: this.name, holder: this.me });
  }
}

/** What a TurnTimer needs of the service: the database, this instance's name, its clock, the bus and a logger. */
export interface TurnTimerDeps {
  db: { kysely: Kysely<DatabaseSchema> };
  instanceName: string;
  now: () => number;
  bus: EventBus;
  logger: Logger;
}

/** The longest a turn of a TurnTimer lasts unrenewed: how long a crashed holder keeps the work from the others. */
export const MAX_TURN_SECONDS = 60;

/**
 * Work done every interval for the whole cluster by one instance at a time: the holder of the
 * turn `turn`, or by every instance when `turn` is null (work only this instance can do, such as
 * its embedded broker's locks'). The turn lasts three intervals, at most MAX_TURN_SECONDS (an
 * instance that crashed holding it keeps the work from the others that long, not three hours of
 * an hourly sweep), and the timer ticks three times a turn: each tick renews the turn when less
 * than half of it is left, a run under way or not (a run longer than the turn kept it no more,
 * and another instance ran the same work meanwhile: review), and starts a run when the interval
 * since this instance's last run is over and none is under way. An instance not `eligible` (the
 * work needs what it lacks now: its broker connection) gives a turn it holds up and claims none,
 * so an instance able to do the work takes it. `stop()` waits for the tick and the run under way
 * (a claim still on its way would otherwise take the turn after the release and hold it, unused),
 * then for `drain`, then gives the turn up so another instance runs from its next tick.
 */
export class TurnTimer {
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private running: Promise<void> | undefined;
  private lastRunAt = 0;
  private stopped = false;
  private readonly turn: ClusterTurn | null;
  private readonly tickMs: number;
  /** Runs this instance made from its timer: what tells a test which instance does the work. */
  runsHere = 0;

  constructor(
    private readonly deps: TurnTimerDeps,
    private readonly options: {
      /** The turn's name (cluster_turns.name); null: every instance runs. */
      turn: string | null;
      intervalMs: number;
      /** What runs, for its log lines ("the alarm sweep"). */
      what: string;
      run: () => Promise<unknown> | void;
      /** Whether this instance can do the work now (default: always). */
      eligible?: () => boolean;
    },
  ) {
    const { turn, intervalMs } = options;
    const turnSeconds = Math.min((3 * intervalMs) / 1000, MAX_TURN_SECONDS);
    // No ticks, no turn (whose subscription to the bus would be for nothing).
    this.turn = turn === null || intervalMs <= 0 ? null : new ClusterTurn(deps.db.kysely, turn, deps.instanceName, turnSeconds, deps.now, deps.bus);
    this.tickMs = this.turn === null ? intervalMs : Math.min(intervalMs, (turnSeconds * 1000) / 3);
  }

  /** Starts the ticks (none for an interval of 0); the first run is an interval away. */
  start(): void {
    if (this.options.intervalMs <= 0 || this.timer !== undefined || this.stopped) return;
    this.lastRunAt = Date.now();
    this.timer = setInterval(() => {
      this.ticking ??= this.tick().finally(() => (this.ticking = undefined));
    }, this.tickMs);
    this.timer.unref();
  }

  async stop(drain?: () => Promise<unknown>): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.ticking;
    await this.running;
    await drain?.();
    await this.turn?.release().catch((err: unknown) => this.deps.logger.warn({ err }, `could not give up the turn of ${this.options.what}`));
  }

  private async tick(): Promise<void> {
    try {
      if (this.turn !== null) {
        if (!(this.options.eligible?.() ?? true)) return await this.turn.giveUp();
        if (!(await this.turn.take())) return;
      }
    } catch (err) {
      this.deps.logger.error({ err }, `${this.options.what} failed: its turn could not be read`);
      return;
    }
    // Half a tick's slack: a tick a millisecond early by the wall clock does not put the run off by a whole tick.
    if (this.stopped || this.running !== undefined || Date.now() - this.lastRunAt < this.options.intervalMs - this.tickMs / 2) return;
    this.lastRunAt = Date.now();
    this.runsHere += 1;
    this.running = Promise.resolve()
      .then(() => this.options.run())
      .then(
        () => undefined,
        (err: unknown) => this.deps.logger.error({ err }, `${this.options.what} failed`),
      )
      .finally(() => (this.running = undefined));
  }
}
