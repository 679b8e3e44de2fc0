import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** What a lock keeps in `file`, or null before it has written it (any other read error stops the lock). */
export function readStoredFile(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    return null;
  }
}

/** Makes the folder of `file`, so that the first write does not fail. */
export function prepareStoredFile(file: string): void {
  mkdirSync(dirname(file), { recursive: true });
}

/** Replaces `file` with `text` whole: a temporary file, flushed, renamed over it (a crash leaves the old or the new, never half). */
export function replaceStoredFile(file: string, text: string): void {
  const temporary = `${file}.tmp`;
  writeFileSync(temporary, text, { flush: true });
  renameSync(temporary, file);
}
