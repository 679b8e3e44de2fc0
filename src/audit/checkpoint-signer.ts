import type { AppContext } from '../context.js';
import { isUniqueViolation } from '../db/errors.js';
import type { ClusterTurn } from '../db/turns.js';
import { AUDIT_CHANNEL } from './channel.js';
import { appendCheckpointOnce } from './checkpoint-file.js';
import { loadCheckpointKey, type CheckpointKey } from './checkpoint-key.js';
import { signCheckpoint } from './note.js';
import { readTreeHead, rootAt } from './tree.js';

/** What the signer reads: the database, the sealed key, the checkpoint settings and the clock; the bus, to hear of other instances' entries. */
export type CheckpointSignerDeps = Pick<AppContext, 'db' | 'box' | 'config' | 'logger' | 'now' | 'bus'>;

/** The cluster's turn to sign (src/db/turns.ts): its name, and how long a silent signer keeps it. */
export const CHECKPOINT_TURN = 'audit-checkpoint';
export const CHECKPOINT_TURN_SECONDS = 15;

/**
 * Signs the committed tree head after audit commits: at once when none was signed in the last
 * AUDIT_CHECKPOINT_INTERVAL_MS, else once the interval is over (so at most one signature per
 * interval under load). Never on a request's path: the after-commit hook only schedules. Each
 * checkpoint goes to `audit_checkpoints` and is appended to AUDIT_CHECKPOINT_FILE, outside the
 * database.
 *
 * One instance of a cluster signs for all (issue 33 point 2): the one holding the turn
 * `audit-checkpoint` (src/db/turns.ts), which hears the others' entries on the bus and renews its
 * turn as it signs. Another instance that records an entry leaves it to the holder, and looks
 * again when the holder's turn runs out: if the holder has not signed since (stopped, crashed, or
 * deaf to the bus), it takes the turn and signs. So the cluster signs at most once per interval,
 * not once per instance, and an entry waits at most the turn's length for a holder gone silent.
 * Should two instances sign all the same (clocks apart, a turn taken over mid-signature), nothing
 * breaks: the head row is read as committed, so a checkpoint of size N always has the tree's root
 * at N, and two signing N keep one row and one line (only the one whose row went in appends it).
 * Signings in this process run one at a time, and the file never gets the same checkpoint twice in
 * a row (checkpoint-file.ts). One per service, built by the composition root (ctx.checkpoints)
 * and closed with the context.
 */
export class CheckpointSigner {
  private key: CheckpointKey | null = null;
  private lastSignedAt = 0;
  private timer: NodeJS.Timeout | null = null;
  private signing: Promise<void> | null = null;
  private again = false;
  private closed = false;
  /** Whether anything asked for a signature or the key: a context that never did (a CLI command) signs nothing on close. */
  private used = false;
  /** The last signing in this process: the next one waits for it (start-up, the timer and close may overlap). */
  private queue: Promise<unknown> = Promise.resolve();
  /** Checkpoints this instance signed (the others' are theirs): what tells a test which instance holds the turn. */
  signedHere = 0;
  /**
   * When (ctx.now) the latest entry recorded here that waits for another instance's signature was
   * recorded; null: none waits. The latest, not the first: a holder that renewed its turn between
   * the two has not been shown alive since the later one (review).
   */
  private owedSince: number | null = null;
  /** The look again at the end of another instance's turn. */
  private watch: NodeJS.Timeout | null = null;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly ctx: CheckpointSignerDeps,
    private readonly turn: ClusterTurn,
  ) {
    // The others' entries: the holder signs them; an instance without the turn owes nothing for them.
    this.unsubscribe = ctx.bus.subscribe(AUDIT_CHANNEL, () => {
      if (this.turn.held()) this.look();
    });
    // The holder stopped: what waits for its signature is signed here at once (if this instance is the first to claim the turn).
    turn.onFreed(() => {
      if (this.owedSince !== null) this.look();
    });
  }

  /**
   * Loads (or creates) the key and signs what was recorded while stopped: once, at start-up. The
   * latest checkpoint also goes to the file if it is not its last (stopped between the row and the line).
   */
  async start(): Promise<CheckpointKey> {
    const key = await this.signingKey();
    await this.signNow();
    await this.serialised(async () => {
      const latest = await this.ctx.db.kysely.selectFrom('audit_checkpoints').select('note').orderBy('tree_size', 'desc').limit(1).executeTakeFirst();
      if (latest) await appendCheckpointOnce(this.ctx.config.auditCheckpoint.file, latest.note);
    });
    return key;
  }

  /**
   * The signing key, loaded once; signs nothing. What a request may ask for: signing stays with
   * the after-commit hook and its interval, whoever calls the public checkpoint routes.
   */
  async signingKey(): Promise<CheckpointKey> {
    this.used = true;
    this.key ??= (await loadCheckpointKey(this.ctx))!;
    return this.key;
  }

  /** An audit entry committed: sign now or at the end of the interval; or, while another instance's turn runs, leave it to that one. */
  poke(): void {
    if (this.closed) return;
    this.owedSince = this.ctx.now();
    this.look();
  }

  /** Signs now, at the end of the interval, or leaves it to the turn's holder: for what this instance recorded or heard. */
  private look(): void {
    if (this.closed) return;
    this.used = true;
    if (this.turn.othersUntil() !== null) {
      this.owe();
      return;
    }
    const wait = this.lastSignedAt + this.ctx.config.auditCheckpoint.intervalMs - Date.now();
    if (this.signing || wait > 0) {
      if (this.signing) this.again = true;
      else this.timer ??= setTimeout(() => ((this.timer = null), this.run()), wait);
      return;
    }
    this.run();
  }

  /**
   * An entry recorded here waits for the holder's signature: nothing to do if the holder renewed
   * its turn since (it read the head after the entry, so its next signature covers it), else look
   * again when its turn runs out.
   */
  private owe(): void {
    if (this.closed || this.owedSince === null) return;
    const since = this.turn.othersSince();
    if (since !== null && since > this.owedSince) {
      this.owedSince = null;
      return;
    }
    if (this.watch) return;
    // No other holder known (its turn ran out since the database answered): look again at once.
    const until = this.turn.othersUntil();
    const wait = until === null ? 50 : Math.min(Math.max(0, (until - this.ctx.now()) * 1000), CHECKPOINT_TURN_SECONDS * 1000) + 50;
    this.watch = setTimeout(() => {
      this.watch = null;
      this.look();
    }, wait);
    this.watch.unref();
  }

  private run(): void {
    this.signing = this.signNow()
      .catch((err: unknown) => this.ctx.logger.error({ err }, 'audit checkpoint signing failed'))
      .finally(() => {
        this.signing = null;
        if (this.again) {
          this.again = false;
          this.look();
        }
      });
  }

  /** Signs the committed head unless a checkpoint covers it already; after any signing under way. */
  signNow(): Promise<void> {
    this.used = true;
    return this.serialised(() => this.signHead());
  }

  private serialised<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async signHead(): Promise<void> {
    const db = this.ctx.db;
    const { dialect } = db;
    this.key ??= (await loadCheckpointKey(this.ctx))!;
    if (!(await this.turn.take())) {
      this.owe();
      return;
    }
    this.owedSince = null;
    this.lastSignedAt = Date.now();
    const head = await readTreeHead(db.kysely, dialect);
    const latest = await db.kysely.selectFrom('audit_checkpoints').select(['tree_size', 'root_hash']).orderBy('tree_size', 'desc').limit(1).executeTakeFirst();
    if (head.size === 0 || (latest && Number(latest.tree_size) >= head.size)) return;
    // Refuse to sign over a tree whose past no longer matches what was signed (rewritten under us).
    if (latest && !(await rootAt(db.kysely, Number(latest.tree_size))).equals(latest.root_hash)) {
      throw new Error(`the audit tree no longer matches checkpoint ${latest.tree_size}: not signing (run latchkey audit verify)`);
    }
    const note = signCheckpoint({ origin: this.key.origin, size: head.size, root: head.root }, this.key.origin, this.key.privateKey, this.key.publicKeyRaw);
    try {
      await db.kysely.insertInto('audit_checkpoints').values({ tree_size: head.size, root_hash: head.root, note, signed_at: this.ctx.now() }).execute();
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      return; // another instance signed this size, and appends it
    }
    this.signedHere += 1;
    await appendCheckpointOnce(this.ctx.config.auditCheckpoint.file, note);
  }

  /** Stops the timer and signs what is left, so a clean shutdown leaves the whole log covered. */
  async close(): Promise<void> {
    this.closed = true;
    this.unsubscribe();
    if (this.timer) clearTimeout(this.timer);
    if (this.watch) clearTimeout(this.watch);
    await this.signing;
    if (!this.used) return;
    await this.signNow().catch((err: unknown) => this.ctx.logger.error({ err }, 'audit checkpoint signing failed'));
    // The next instance to record an entry signs at once, not at the end of this one's turn.
    await this.turn.release().catch((err: unknown) => this.ctx.logger.warn({ err }, 'could not give up the audit checkpoint turn'));
  }
}

/** recordAudit's after-commit hook. */
export function afterAuditCommit(ctx: Pick<AppContext, 'checkpoints'>): void {
  ctx.checkpoints.poke();
}
