import { readFileSync } from 'node:fs';

/** What a lock keeps in `file`, or null before it has written it (any other read error stops the lock). */
export function readStoredFile(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    return null;
  }
}
