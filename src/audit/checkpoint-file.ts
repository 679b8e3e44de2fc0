import { existsSync } from 'node:fs';
import { appendFile, mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Far more than one note (about 150 bytes): the file's last note is always whole in it. */
const TAIL_BYTES = 8192;

/** The body (origin, size, root) of the file's last note, or undefined for an empty or missing file. */
async function lastBody(file: string): Promise<string | undefined> {
  if (!existsSync(file)) return undefined;
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, TAIL_BYTES);
    const { buffer } = await handle.read(Buffer.alloc(length), 0, length, size - length);
    // Notes are `body\n\nsignature\n` each followed by a blank line: the body is the next-to-last block.
    const blocks = buffer.toString('utf8').split('\n\n').filter((b) => b.trim() !== '');
    return blocks.length >= 2 ? `${blocks[blocks.length - 2]!.replace(/^\n+/, '')}\n` : undefined;
  } finally {
    await handle.close();
  }
}

/**
 * Appends a signed note (followed by a blank line) to AUDIT_CHECKPOINT_FILE unless the file's last
 * note is already of the same checkpoint (its body: origin, tree size, root), so that signing or
 * catching up twice never writes it twice in a row. Callers serialise their appends.
 */
export async function appendCheckpointOnce(file: string, note: string): Promise<boolean> {
  const body = note.slice(0, note.indexOf('\n\n') + 1);
  if ((await lastBody(file)) === body) return false;
  await mkdir(dirname(file), { recursive: true });
  await appendFile(file, `${note}\n`);
  return true;
}
