import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import type { Config } from '../config/config.js';
import { createSecretBox, loadKeyEncryptionKey } from '../crypto/secret-box.js';
import type { DatabaseSchema } from '../db/schema.js';
import type { Database } from '../db/database.js';
import { UsageError, optionPath, printer, type Command } from '../command-line/command.js';
import { withDatabase } from '../command-line/database.js';
import { isUuid } from '../ids/path-ids.js';
import { loadCheckpointKey } from './checkpoint-key.js';
import { lockExists } from './queries.js';
import { parseVerifierKey, type NoteVerifier } from './note.js';
import { verifyAuditLog } from './verify-log.js';
import { verifyAuditTrail } from './verify.js';

/** A lock that exists, or existed: its trail outlives it. */
async function isKnownLock(db: Kysely<DatabaseSchema>, lockId: string): Promise<boolean> {
  if (await lockExists(db, lockId)) return true;
  return (await db.selectFrom('audit_entries').select('seq').where('lock_id', '=', lockId).limit(1).executeTakeFirst()) !== undefined;
}

/**
 * The checkpoint verifier: the one given (a third party's copy of the key), else the service's own
 * key opened with the key-encryption key (never creating one: the command only reads).
 */
export async function checkpointVerifier(config: Config, db: Database, given: string | undefined): Promise<NoteVerifier | null> {
  if (given !== undefined) {
    try {
      return parseVerifierKey(given);
    } catch (err) {
      throw new UsageError(`--key: ${(err as Error).message}`);
    }
  }
  if (config.keyEncryptionKey === null && !existsSync(join(config.dataDir, 'key-encryption.key'))) return null;
  const box = createSecretBox(loadKeyEncryptionKey(config.keyEncryptionKey, config.dataDir));
  return (await loadCheckpointKey({ db, box, config, now: () => Date.now() / 1000 }, false))?.verifier ?? null;
}

async function verifyOneLock(db: Kysely<DatabaseSchema>, lockId: string, print: (line: string) => void): Promise<number> {
  if (!isUuid(lockId)) throw new UsageError('--lock must be a lock id (UUID)');
  if (!(await isKnownLock(db, lockId))) throw new UsageError(`unknown lock ${lockId}`);
  const result = await verifyAuditTrail(db, { lockId });
  print(JSON.stringify(result.ok ? result : { ok: false, lockId: result.lockId, seq: result.seq, id: result.id, reason: result.reason }));
  return result.ok ? 0 : 1;
}

/**
 * `latchkey audit verify [--lock ID] [--checkpoint FILE] [--key VKEY]`: recomputes the Merkle tree
 * of the whole log and checks it against every signed checkpoint (the database's, the outside
 * file's, FILE's); prints one JSON line, with the checkpoint verified against, or what broke
 * (exit 1). `--lock` checks only that lock's hash chain (truncation cannot be seen that way).
 */
export const auditVerifyCommand: Command = {
  path: ['audit', 'verify'],
  summary: 'Check the audit log against its signed checkpoints; exit 1 naming what broke',
  usage: 'audit verify [--lock ID] [--checkpoint FILE] [--key VERIFIER_KEY]',
  options: {
    lock: { type: 'string', description: 'check only this lock\'s hash chain (a lock id) instead of the whole log' },
    checkpoint: { type: 'string', description: 'also check against a checkpoint kept elsewhere (a signed-note file, e.g. saved by a witness)' },
    key: { type: 'string', description: 'the checkpoint key (signed-note verifier key) to check --checkpoint with; default: the service\'s own' },
  },
  async run(values, io) {
    const print = printer(io.stdout);
    return withDatabase(io, async (db, config) => {
      if (values.lock !== undefined) return await verifyOneLock(db.kysely, String(values.lock).toLowerCase(), print);
      const checkpointFile = optionPath(values, 'checkpoint', io);
      if (checkpointFile !== undefined && !existsSync(checkpointFile)) throw new UsageError(`--checkpoint: no file ${checkpointFile}`);
      const verifier = await checkpointVerifier(config, db, values.key === undefined ? undefined : String(values.key));
      const entries = await db.kysely.selectFrom('audit_entries').select('seq').limit(1).executeTakeFirst();
      if (verifier === null) {
        print(JSON.stringify(entries ? { ok: false, problem: 'bad checkpoint', detail: 'no checkpoint key: give --key, or run with the service’s KEY_ENCRYPTION_KEY / DATA_DIR' } : { ok: true, entries: 0, locks: 0, treeSize: 0, checkpoint: null }));
        return entries ? 1 : 0;
      }
      const files = [config.auditCheckpoint.file, ...(checkpointFile ? [checkpointFile] : [])].filter((f) => existsSync(f));
      const result = await verifyAuditLog(db.kysely, { verifier, files, waitForSignatureMs: config.auditCheckpoint.intervalMs + 2000 });
      print(JSON.stringify({ ...result, verifierKey: verifier.verifierKey }));
      return result.ok ? 0 : 1;
    });
  },
};
