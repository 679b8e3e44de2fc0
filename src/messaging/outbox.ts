import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { newId } from '../crypto/random.js';

/** With no mail or SMS provider configured, messages land here for the operator to read. */
export async function writeToOutbox(dataDir: string, kind: 'email' | 'sms', message: object): Promise<string> {
  const dir = join(dataDir, 'outbox');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `${kind}-${newId()}.json`);
  await writeFile(file, JSON.stringify(message, null, 2), { mode: 0o600 });
  return file;
}
