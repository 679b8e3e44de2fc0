import type { Kysely } from 'kysely';
import { loadConfig } from '../config/config.js';
import type { DatabaseSchema } from '../db/schema.js';
import { openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrator.js';
import { UsageError, type Command } from '../cli/command.js';
import { isUuid } from '../locks/ids.js';
import { findLock } from '../locks/queries.js';
import { verifyAuditTrail } from './verify.js';

type Print = (line: string) => void;

/** A lock that exists, or existed: its trail outlives it. */
async function isKnownLock(db: Kysely<DatabaseSchema>, lockId: string): Promise<boolean> {
  if (await findLock(db, lockId)) return true;
  return (await db.selectFrom('audit_entries').select('seq').where('lock_id', '=', lockId).limit(1).executeTakeFirst()) !== undefined;
}

/**
 * `latchkey audit verify [--lock ID]`: recomputes the hash chains (one lock, or all in turn) and
 * prints one JSON line: `{"ok": true, "locks", "entries"}` or the first broken entry. Exit 1 when
 * broken. It reads only; entries removed from the very end of a trail cannot be detected this way.
 */
export function auditVerifyCommand(print: Print = (line) => void process.stdout.write(`${line}\n`)): Command {
  return {
    path: ['audit', 'verify'],
    summary: 'Check the audit hash chains; exit 1 when one is broken',
    usage: 'audit verify [--lock ID]',
    options: { lock: { type: 'string', description: 'check only this lock\'s trail (a lock id); default: every lock in turn' } },
    async run(values) {
      const lockId = values.lock === undefined ? undefined : String(values.lock).toLowerCase();
      if (lockId !== undefined && !isUuid(lockId)) throw new UsageError('--lock must be a lock id (UUID)');
      const db = openDatabase(loadConfig().database);
      try {
        // A database never served has no trail yet: an empty one, not a broken one.
        await migrateToLatest(db);
        if (lockId !== undefined && !(await isKnownLock(db.kysely, lockId))) throw new UsageError(`unknown lock ${lockId}`);
        const result = await verifyAuditTrail(db.kysely, { lockId });
        print(JSON.stringify(result.ok ? result : { ok: false, lockId: result.lockId, seq: result.seq, id: result.id, reason: result.reason }));
        return result.ok ? 0 : 1;
      } finally {
        await db.close();
      }
    },
  };
}
