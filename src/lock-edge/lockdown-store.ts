import { prepareStoredFile, readStoredFile, replaceStoredFile } from './stored-file.js';

/** A lockdown the lock holds (device protocol 1.4): declared by `declaredBy`, lifted only by `quorum` distinct administrators. */
export interface HeldLockdown {
  id: string;
  declaredBy: string;
  /** User ids (lower case) whose unlocks the lock still carries out. */
  responders: string[];
  quorum: number;
}

/** Lifted lockdowns remembered so that their declaration, delivered again, never re-applies (the newest kept). */
const MAX_LIFTED = 64;

interface Stored {
  active: HeldLockdown | null;
  lifted: string[];
}

/**
 * What a lock keeps of lockdowns across restarts: the one in force, and the ids of those lifted.
 * With a file it is written (a temporary file renamed over it, flushed) before the change takes
 * effect, so a lock that restarts is still locked down, whatever config it then receives.
 */
export class LockdownStore {
  private state: Stored = { active: null, lifted: [] };

  constructor(private readonly file: string | null = null) {
    if (file === null) return;
    const text = readStoredFile(file);
    // A file that does not read back is not trusted to mean "no lockdown": the lock refuses to start.
    if (text !== null) this.state = parseStored(text, file);
    prepareStoredFile(file);
  }

  get active(): HeldLockdown | null {
    return this.state.active;
  }

  wasLifted(id: string): boolean {
    return this.state.lifted.includes(id);
  }

  declare(lockdown: HeldLockdown): void {
    this.save({ active: lockdown, lifted: this.state.lifted });
  }

  lift(): void {
    const active = this.state.active;
    if (active === null) return;
    this.save({ active: null, lifted: [...this.state.lifted, active.id].slice(-MAX_LIFTED) });
  }

  private save(next: Stored): void {
    if (this.file !== null) replaceStoredFile(this.file, JSON.stringify(next));
    this.state = next;
  }
}

function parseStored(text: string, file: string): Stored {
  const value = JSON.parse(text) as Partial<Stored>;
  const active = value.active;
  const validActive =
    active === null ||
    (typeof active === 'object' && active !== undefined && typeof active.id === 'string' && typeof active.declaredBy === 'string' &&
      Array.isArray(active.responders) && active.responders.every((r) => typeof r === 'string') && Number.isInteger(active.quorum));
  if (!validActive || !Array.isArray(value.lifted) || !value.lifted.every((id) => typeof id === 'string')) throw new Error(`lockdown file ${file} is malformed`);
  return { active: active ?? null, lifted: value.lifted };
}
