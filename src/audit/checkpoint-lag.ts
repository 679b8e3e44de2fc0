import type { Executor } from '../db/transaction.js';

/**
 * The audit checkpoint lag (metric `latchkey_audit_checkpoint_lag_seconds`): seconds from the
 * recording of the oldest audit entry that no signed checkpoint covers yet to `now`; 0 when every
 * entry is covered. Read from the database, so it is the whole deployment's, whichever instance
 * signs: entry `i` of the log (0-based, in tree order) is covered once a checkpoint of size > i
 * exists, so the oldest uncovered one is the leaf at the largest checkpoint's size. One indexed
 * read. Normally below AUDIT_CHECKPOINT_INTERVAL_MS; growing means checkpoints are not being
 * signed (a tampered tree, an unwritable AUDIT_CHECKPOINT_FILE, a database error: see the log).
 */
export async function auditCheckpointLag(db: Executor, now: number): Promise<number> {
  const oldest = await db
    .selectFrom('audit_tree_nodes as n')
    .innerJoin('audit_entries as e', 'e.seq', 'n.entry_seq')
    .select('e.timestamp')
    // Leaf i sits at position i (level 0, tree.ts).
    .where('n.position', '=', (eb) => eb.selectFrom('audit_checkpoints').select((c) => c.fn.coalesce(c.fn.max('tree_size'), c.lit(0)).as('size')))
    .executeTakeFirst();
  return oldest === undefined ? 0 : Math.max(0, now - Number(oldest.timestamp));
}
