import type { AppContext } from '../context.js';
import { markAllDisconnected, unauditedDisconnectIds } from '../locks/state.js';
import { recordOwedDisconnects } from './reports.js';

/** Entries a transaction of the sweep writes: short enough that a returning lock's writes wait little for one. */
const PAGE = 100;

/**
 * The embedded broker starts empty with the service: no lock is connected, whatever the database
 * says. The start stores that for every lock in one statement, each marked as owing its
 * DEVICE_DISCONNECTED entry (migration 0220), and serves; the entries are written after, a page a
 * transaction, between the work of the locks coming back, or by the presence batch of a lock that
 * comes back before the sweep reaches it, just before its DEVICE_CONNECTED. Writing 20,000 entries
 * first made the service start 30 s late (docs/scaling.md, Fleet), and every lock's back-off grew
 * meanwhile. Each entry is dated when the start stored the lock disconnected, so a lock's trail
 * shows it offline from the restart until its return. A mark left by a crash is swept on the next
 * start, with the embedded broker or not.
 */
export class DisconnectSweep {
  private owed: boolean;
  private stopped = false;
  private readonly running: Promise<void>;

  private constructor(private readonly ctx: AppContext, owed: boolean) {
    this.owed = owed;
    this.running = owed ? this.run() : Promise.resolve();
  }

  /** Stores every lock disconnected (`embeddedBroker`: it starts empty) and starts writing the entries owed. */
  static async start(ctx: AppContext, embeddedBroker: boolean): Promise<DisconnectSweep> {
    const marked = embeddedBroker ? await markAllDisconnected(ctx.db.kysely, ctx.now()) : 0;
    return new DisconnectSweep(ctx, marked > 0 || (await unauditedDisconnectIds(ctx.db.kysely, 1)).length > 0);
  }

  /** Whether some lock may still owe its entry: its presence batch then claims it (reports.ts, recordPresences). */
  get pending(): boolean {
    return this.owed;
  }

  /** Resolves once every owed entry is written (or the sweep stopped). */
  finished(): Promise<void> {
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  private async run(): Promise<void> {
    try {
      while (!this.stopped) {
        if ((await recordOwedDisconnects(this.ctx, PAGE)) === 0) {
          this.owed = false;
          return;
        }
        // The locks coming back go first: a page a turn of the event loop.
        await new Promise((resolve) => setImmediate(resolve));
      }
    } catch (err) {
      // Left marked: the presence batches still claim theirs, and the next start sweeps the rest.
      this.ctx.logger.error({ err }, 'recording the disconnects of the start failed');
    }
  }
}
