import { UsageError, requireString, type Command } from '../cli/command.js';
import { loadConfig } from '../config/config.js';
import { openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrator.js';
import { isAppError } from '../errors/catalogue.js';
import { isUuid } from './ids.js';
import { provisionLock } from './provision.js';

type Print = (line: string) => void;
const stdout: Print = (line) => void process.stdout.write(`${line}\n`);

/**
 * `latchkey lock provision --name N [--site SITE_ID]`: creates an unowned lock and prints
 * `{"id", "registrationKey", "secret"}` once; only their hashes are stored, so this output is the
 * only copy. Exit 2 for a bad argument or an unknown site.
 */
export function lockProvisionCommand(print: Print = stdout): Command {
  return {
    path: ['lock', 'provision'],
    summary: 'Create an unowned lock; prints its id, registration key and device secret as JSON',
    usage: 'lock provision --name N [--site SITE_ID]',
    options: {
      name: { type: 'string', description: 'the lock\'s name, 1 to 255 characters (required)' },
      site: { type: 'string', description: 'a site id (from `latchkey site create`) the lock belongs to; default: none' },
    },
    async run(values) {
      const name = requireString(values, 'name');
      if (name.trim() === '' || name.length > 255) throw new UsageError('--name must be 1 to 255 characters');
      const siteId = values.site === undefined ? null : String(values.site).toLowerCase();
      if (siteId !== null && !isUuid(siteId)) throw new UsageError('--site must be a site id (UUID)');
      const db = openDatabase(loadConfig().database);
      try {
        await migrateToLatest(db);
        const lock = await provisionLock(db.kysely, { name, siteId }, Date.now() / 1000);
        print(JSON.stringify(lock));
        return 0;
      } catch (err) {
        if (isAppError(err) && err.status === 404) throw new UsageError(`unknown site ${siteId}`);
        throw err;
      } finally {
        await db.close();
      }
    },
  };
}
