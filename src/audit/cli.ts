import { loadConfig } from '../config/config.js';
import { openDatabase } from '../db/database.js';
import { UsageError, type Command } from '../cli/command.js';
import { verifyAuditTrail } from './verify.js';

type Print = (line: string) => void;

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
    options: { lock: { type: 'string' } },
    async run(values) {
      const lockId = values.lock === undefined ? undefined : String(values.lock);
      if (lockId === '') throw new UsageError('--lock needs a lock id');
      const db = openDatabase(loadConfig().database);
      try {
        const result = await verifyAuditTrail(db.kysely, { lockId });
        print(JSON.stringify(result.ok ? result : { ok: false, lockId: result.lockId, seq: result.seq, id: result.id, reason: result.reason }));
        return result.ok ? 0 : 1;
      } finally {
        await db.close();
      }
    },
  };
}
