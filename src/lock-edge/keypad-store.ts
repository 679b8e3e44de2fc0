import { prepareStoredFile, readStoredFile, replaceStoredFile } from './stored-file.js';

/** Codes whose uses are remembered at most; past it the one counted longest ago is forgotten. */
const MAX_CODES = 2_048;

interface Stored {
  /** Uses on this lock, by code id. */
  uses: Record<string, number>;
  /** Unix seconds until which the keypad refuses every entry (0: not locked out). */
  lockedOutUntil: number;
}

/**
 * What a lock's keypad keeps across restarts (issue 30): each code's uses on this lock, so a
 * one-time code used before a restart stays used, and a lockout in force, so a restart does not
 * end it. With a file, a change is written (a temporary file renamed over it, flushed) before the
 * entry it counts opens the door. A file that does not read back stops the lock, as a lockdown's.
 */
export class KeypadStore {
  private readonly uses = new Map<string, number>();
  private until = 0;

  constructor(private readonly file: string | null = null) {
    if (file === null) return;
    const text = readStoredFile(file);
    if (text !== null) {
      const stored = parseStored(text, file);
      for (const [code, count] of Object.entries(stored.uses)) this.uses.set(code, count);
      this.until = stored.lockedOutUntil;
    }
    prepareStoredFile(file);
  }

  usesOf(codeId: string): number {
    return this.uses.get(codeId) ?? 0;
  }

  get lockedOutUntil(): number {
    return this.until;
  }

  /** One more use of `codeId` on this lock. */
  countUse(codeId: string): void {
    const count = this.usesOf(codeId) + 1;
    // Counted last, kept longest.
    this.uses.delete(codeId);
    this.uses.set(codeId, count);
    for (const oldest of this.uses.keys()) {
      if (this.uses.size <= MAX_CODES) break;
      this.uses.delete(oldest);
    }
    this.save();
  }

  lockOut(until: number): void {
    this.until = until;
    this.save();
  }

  private save(): void {
    if (this.file === null) return;
    const stored: Stored = { uses: Object.fromEntries(this.uses), lockedOutUntil: this.until };
    replaceStoredFile(this.file, JSON.stringify(stored));
  }
}

function parseStored(text: string, file: string): Stored {
  const value = JSON.parse(text) as Partial<Stored>;
  const uses = value.uses;
  const valid = typeof uses === 'object' && uses !== null && Object.values(uses).every((n) => Number.isInteger(n) && n >= 0) && typeof value.lockedOutUntil === 'number';
  if (!valid) throw new Error(`keypad file ${file} is malformed`);
  return { uses, lockedOutUntil: value.lockedOutUntil! };
}
