import { closeSync, fdatasyncSync, mkdirSync, openSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { readStoredFile } from './stored-file.js';
import { dirname } from 'node:path';

const LOOK_EVERY_LINES = 1_000;

/**
 * The tokens a lock has already acted on, each remembered until it expires (a token past its
 * `exp` is refused anyway, so forgetting it then is safe).
 *
 * With a journal file it survives a restart: each new key is appended and synced to disk before
 * `remember` returns, so before the bolt moves (a lock that restarted between acting and writing
 * would otherwise act on the same token twice). Opening reads the journal and rewrites it with
 * only the live keys; it is rewritten again when most of its lines are of expired keys.
 */
export class ReplayMemory {
  private readonly seen = new Map<string, number>();
  private journal: number | null = null;
  private journalLines = 0;
  private nextLook = LOOK_EVERY_LINES;

  constructor(private readonly maxEntries = 100_000, private readonly file: string | null = null) {}

  /** A memory kept in `file` (created with its folder when missing), holding the keys still live at `now`. */
  static open(file: string, now: number, maxEntries = 100_000): ReplayMemory {
    const memory = new ReplayMemory(maxEntries, file);
    const text = readStoredFile(file) ?? '';
    for (const line of text.split('\n')) {
      const entry = journalEntry(line);
      if (entry !== null && entry[1] > now) memory.seen.set(entry[0], entry[1]);
    }
    mkdirSync(dirname(file), { recursive: true });
    memory.compact();
    return memory;
  }

  get size(): number {
    return this.seen.size;
  }

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
    this.append(key, expiresAt, now);
    return 'new';
  }

  close(): void {
    if (this.journal !== null) closeSync(this.journal);
    this.journal = null;
  }

  private append(key: string, expiresAt: number, now: number): void {
    if (this.file === null) return;
    // Every thousand lines, a look at whether most of the journal is dead.
    if (this.journalLines >= this.nextLook) {
      this.forgetExpired(now);
      this.nextLook = this.journalLines + LOOK_EVERY_LINES;
      if (this.journalLines > 2 * this.seen.size) return this.compact();
    }
    this.journal ??= openSync(this.file, 'a');
    writeSync(this.journal, journalLine(key, expiresAt));
    fdatasyncSync(this.journal);
    this.journalLines += 1;
  }

  /** Rewrites the journal with the live keys only (a temporary file renamed over it: never half written). */
  private compact(): void {
    if (this.file === null) return;
    this.close();
    const temporary = `${this.file}.tmp`;
    let text = '';
    for (const [key, until] of this.seen) text += journalLine(key, until);
    writeFileSync(temporary, text, { flush: true });
    renameSync(temporary, this.file);
    this.journalLines = this.seen.size;
    this.nextLook = this.journalLines + LOOK_EVERY_LINES;
  }

  private forgetExpired(now: number): void {
    for (const [key, until] of this.seen) if (until <= now) this.seen.delete(key);
  }
}

/** One journal line: `["key",expiresAt]` (JSON, so a key may hold any character). */
function journalLine(key: string, expiresAt: number): string {
  return `${JSON.stringify([key, expiresAt])}\n`;
}

/** A journal line read back; null for a torn line (a crash mid-write: it never made `remember` return). */
function journalEntry(line: string): [string, number] | null {
  try {
    const value: unknown = JSON.parse(line);
    if (Array.isArray(value) && typeof value[0] === 'string' && typeof value[1] === 'number') return [value[0], value[1]];
  } catch {
    // torn or empty
  }
  return null;
}
