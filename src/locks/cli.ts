import { UsageError, optionPath, println, requirePath, requireString, type Command } from '../command-line/command.js';
import { withDatabase } from '../command-line/database.js';
import { isAppError } from '../errors/catalogue.js';
import { isUuid } from '../ids/path-ids.js';
import { provisionLock } from './provision.js';
import type { writeDeviceCertificate as WriteDeviceCertificate } from './device-certificates.js';

// Loaded when a certificate is asked for (--cert-out, `lock certificate`): every other command of
// `latchkey` then starts without the X.509 and ASN.1 modules (docs/decisions.md, The test suite's time).
async function writeDeviceCertificate(...args: Parameters<typeof WriteDeviceCertificate>) {
  return (await import('./device-certificates.js')).writeDeviceCertificate(...args);
}

/**
 * `latchkey lock provision --name N [--site SITE_ID]`: creates an unowned lock and prints
 * `{"id", "registrationKey", "secret"}` once; only their hashes are stored, so this output is the
 * only copy. Exit 2 for a bad argument or an unknown site.
 */
export const lockProvisionCommand: Command = {
  path: ['lock', 'provision'],
  summary: 'Create an unowned lock; prints its id, registration key and device secret as JSON',
  usage: 'lock provision --name N [--site SITE_ID] [--cert-out DIR]',
  options: {
    name: { type: 'string', description: 'the lock\'s name, 1 to 255 characters (required)' },
    site: { type: 'string', description: 'a site id (from `latchkey site create`) the lock belongs to; default: none' },
    'cert-out': { type: 'string', description: 'also issue the lock an X.509 client certificate for MQTT over TLS, written to this directory with its key and the CA (docs/deployment.md)' },
  },
  async run(values, io) {
    const name = requireString(values, 'name');
    if (name.trim() === '' || name.length > 255) throw new UsageError('--name must be 1 to 255 characters');
    const siteId = values.site === undefined ? null : String(values.site).toLowerCase();
    if (siteId !== null && !isUuid(siteId)) throw new UsageError('--site must be a site id (UUID)');
    try {
      return await withDatabase(io, async (db, config) => {
        const lock = await provisionLock(db.kysely, { name, siteId }, Date.now() / 1000);
        const certOut = optionPath(values, 'cert-out', io);
        const certificate = certOut !== undefined ? await writeDeviceCertificate(config, db, lock.id, certOut, Date.now() / 1000) : undefined;
        println(io.stdout, JSON.stringify(certificate ? { ...lock, certificate } : lock));
        return 0;
      });
    } catch (err) {
      if (isAppError(err) && err.status === 404) throw new UsageError(`unknown site ${siteId}`);
      throw err;
    }
  },
};

/** `latchkey lock certificate --id ID --cert-out DIR`: a new TLS client certificate for an existing lock (renewal). */
export const lockCertificateCommand: Command = {
  path: ['lock', 'certificate'],
  summary: 'Issue a lock a new MQTT client certificate (key, certificate, CA) into a directory',
  usage: 'lock certificate --id ID --cert-out DIR',
  options: {
    id: { type: 'string', description: 'the lock id (required)' },
    'cert-out': { type: 'string', description: 'the directory to write the new key, certificate and CA into (required)' },
  },
  async run(values, io) {
    const lockId = requireString(values, 'id').toLowerCase();
    if (!isUuid(lockId)) throw new UsageError('--id must be a lock id');
    const dir = requirePath(values, 'cert-out', io);
    return withDatabase(io, async (db, config) => {
      const exists = await db.kysely.selectFrom('locks').select('id').where('id', '=', lockId).executeTakeFirst();
      if (!exists) throw new UsageError(`unknown lock ${lockId}`);
      println(io.stdout, JSON.stringify({ id: lockId, certificate: await writeDeviceCertificate(config, db, lockId, dir, Date.now() / 1000) }));
      return 0;
    });
  },
};
