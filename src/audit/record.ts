import { sql, type Insertable, type QueryCreator } from 'kysely';
import type { AppContext } from '../context.js';
import { newId } from '../crypto/random.js';
import type { DialectName } from '../db/database.js';
import type { DatabaseSchema } from '../db/schema.js';
import { prepareQuery } from '../db/prepared.js';
import { inTransaction, type Executor, type UnitOfWork } from '../db/transaction.js';
import { CURRENT_HASH_VERSION, GENESIS_HASH, auditEntryHash, type AuditClient, type AuditPartySnapshot } from './chain.js';
import { AUDIT_CHANNEL } from './channel.js';
import { afterAuditCommit } from './checkpoint-signer.js';
import type { Frontier } from './merkle.js';
import { HEAD_ID, appendLeaf, appendToFrontier, frontierOf, type HeadRow } from './tree.js';
import type { AuditEntriesTable } from './tables.js';
import { auditMessage, type AuditType } from './types.js';

/** What a feature records; the recorder adds id, time, sequence and hash. */
export interface AuditInput {
  lockId: string;
  type: AuditType;
  /** Who acted (the new owner, the admin who shared, the user who unlocked); null for the lock or the service. */
  actorUserId: string | null;
  /** The member concerned, for LOCK_SHARED, LOCK_REVOKED, USER_PROMOTED and USER_DEMOTED. */
  subjectUserId?: string | null;
  /** A refused attempt: `message` is then the reason only (the stored message reads "<attempt> refused: <reason>"). */
  rejected?: boolean;
  /** A refusal because the lock gave no reply in time: the message reads "<attempt>: no reply in time". */
  noReply?: boolean;
  /** For people; a default describing `type` when absent. */
  message?: string;
  /** Structured facts (operation, reason code); JSON values only. Never secrets. */
  details?: Record<string, unknown>;
  /** The client of the actor's request (src/audit/client.ts); absent when they acted through none (a lock's report, the CLI). */
  client?: AuditClient;
  /**
   * When it happened, Unix seconds, when that was before it is recorded (a lock reporting what it
   * did while the service could not be reached: device protocol 1.3); default and at most now.
   */
  at?: number;
}

export interface AuditEntry extends AuditPartySnapshot, AuditClient {
  seq: number;
  id: string;
  lockId: string;
  timestamp: number;
  type: AuditType;
  actorUserId: string | null;
  subjectUserId: string | null;
  rejected: boolean;
  message: string;
  details: Record<string, unknown> | null;
  previousHash: string;
  hash: string;
  version: typeof CURRENT_HASH_VERSION;
}

export { AUDIT_CHANNEL };

// Prepared (src/db/prepared.ts): every lock and unlock appends an entry. The limit is written
// into the SQL: SQLite (built with STAT4) prepares a statement anew whenever a LIMIT parameter
// is bound, which doubled this read's cost (docs/decisions.md, Performance).
const lastEntryHash = prepareQuery<{ lockId: string }, { hash: string }>((db, slot) =>
  db.selectFrom('audit_entries').select('hash').where('lock_id', '=', slot.lockId).orderBy('seq', 'desc').limit(sql.lit(1)));

async function lastHashOf(db: Executor, dialect: DialectName, lockId: string): Promise<string> {
  return (await lastEntryHash.takeFirst(db, dialect, { lockId }))?.hash ?? GENESIS_HASH;
}

type HeadAndPartiesRow = HeadRow & { actor_email: string | null; actor_display_name: string | null; subject_email: string | null; subject_display_name: string | null };
/**
 * SQLite: the tree head and, beside it, who the actor and the subject are (their user rows, if
 * any): one statement; the lock's last hash in another (lastEntryHash). SQLite runs one write
 * transaction at a time.
 */
const readHeadReadingParties = prepareQuery<{ actorId: string | null; subjectId: string | null }, HeadAndPartiesRow>((db, slot) =>
  db
    .selectFrom('audit_tree_head as head')
    .leftJoin('users as actor', (join) => join.on('actor.id', '=', slot.actorId))
    .leftJoin('users as subject', (join) => join.on('subject.id', '=', slot.subjectId))
    .select(['head.size', 'head.frontier', 'actor.email as actor_email', 'actor.display_name as actor_display_name', 'subject.email as subject_email', 'subject.display_name as subject_display_name'])
    .where('head.id', '=', HEAD_ID));

/**
 * PostgreSQL: the same and the lock's last hash in one round trip (migration 0190's function,
 * issue 33 point 3). It locks the head row, held to commit, so every audit writer takes turns
 * (leaves follow commit order, and a lock's chain has one writer at a time); the users are read as
 * its first statement found them, before any wait for that lock; the last hash by a statement of
 * its own after the lock is granted, so under READ COMMITTED it sees the entry of the writer it
 * waited for.
 */
const appendStart = prepareQuery<{ lockId: string; actorId: string | null; subjectId: string | null }, HeadAndPartiesRow & { last_hash: string | null }>((db, slot) =>
  db.selectFrom(sql<HeadAndPartiesRow & { last_hash: string | null }>`audit_append_start(${slot.lockId}, ${slot.actorId}, ${slot.subjectId})`.as('start')).selectAll());

/** The head with the parties, and the lock's previous hash, as the append reads them (see above). */
async function startAppend(uow: UnitOfWork, lockId: string, actorId: string | null, subjectId: string | null): Promise<{ head: HeadAndPartiesRow; previousHash: string }> {
  if (uow.dialect === 'postgres') {
    const row = await appendStart.takeFirst(uow.db, uow.dialect, { lockId, actorId, subjectId });
    if (row === undefined) throw new Error('audit tree head is missing (migration 0008 not run?)');
    return { head: row, previousHash: row.last_hash ?? GENESIS_HASH };
  }
  const head = await readHeadReadingParties.takeFirst(uow.db, uow.dialect, { actorId, subjectId });
  if (head === undefined) throw new Error('audit tree head is missing (migration 0008 not run?)');
  return { head, previousHash: await lastHashOf(uow.db, uow.dialect, lockId) };
}

/** The entry's insert, built once for both statements below. */
function entryInsert(db: QueryCreator<DatabaseSchema>, slot: Insertable<AuditEntriesTable>) {
  return db
    .insertInto('audit_entries')
    .values({
      id: slot.id,
      lock_id: slot.lock_id,
      timestamp: slot.timestamp,
      type: slot.type,
      actor_user_id: slot.actor_user_id,
      subject_user_id: slot.subject_user_id,
      actor_email: slot.actor_email,
      actor_display_name: slot.actor_display_name,
      subject_email: slot.subject_email,
      subject_display_name: slot.subject_display_name,
      actor_ip: slot.actor_ip,
      user_agent_type: slot.user_agent_type,
      user_agent_version: slot.user_agent_version,
      rejected: slot.rejected,
      message: slot.message,
      details: slot.details,
      prev_hash: slot.prev_hash,
      hash: slot.hash,
      hash_version: slot.hash_version,
    });
}

// SQLite: the seq is the insert's rowid (AUTOINCREMENT); RETURNING would buffer the row in a
// temporary table first, a third of the insert's cost.
const insertEntry = prepareQuery<Insertable<AuditEntriesTable>>(entryInsert);

type EntryAndTree = Insertable<AuditEntriesTable> & { positions: number[]; hashes: Buffer[]; leafPosition: number; size: number; frontier: Buffer };
// PostgreSQL (no rowid): the entry, the tree nodes its leaf completes (the leaf naming the entry's
// seq) and the new head, in one statement (issue 33 point 3: four to six round trips → one). Each
// data-modifying WITH runs to completion whether or not the result reads it.
const insertEntryAndTree = prepareQuery<EntryAndTree, { seq: number }>((db, slot) =>
  db
    .with('entry', (qc) => entryInsert(qc, slot).returning('seq'))
    .with('nodes', (qc) =>
      qc
        .insertInto('audit_tree_nodes')
        .columns(['position', 'hash', 'entry_seq'])
        .expression(sql`select n.position, n.hash, case when n.position = ${slot.leafPosition} then (select seq from entry) end
          from unnest(cast(${slot.positions} as bigint[]), cast(${slot.hashes} as bytea[])) as n(position, hash)`))
    .with('head', (qc) => qc.updateTable('audit_tree_head').set({ size: slot.size, frontier: slot.frontier }).where('id', '=', HEAD_ID))
    .selectFrom('entry')
    .select('seq'));

/** Inserts the entry and appends its leaf to `tree` (read with the head's lock in this transaction); answers its seq. */
async function insertEntryAndLeaf(uow: UnitOfWork, row: Insertable<AuditEntriesTable> & { hash: string }, tree: Frontier): Promise<number> {
  if (uow.dialect === 'sqlite') {
    const { insertId } = await insertEntry.execute(uow.db, uow.dialect, row);
    if (insertId === undefined) throw new Error('audit entry insert answered no rowid');
    await appendLeaf(uow.db, uow.dialect, tree, { seq: Number(insertId), hash: row.hash });
    return Number(insertId);
  }
  const { nodes, size, frontier } = appendToFrontier(tree, row.hash);
  const inserted = await insertEntryAndTree.takeFirst(uow.db, uow.dialect, {
    ...row, positions: nodes.map((node) => node.position), hashes: nodes.map((node) => node.hash), leafPosition: nodes[0]!.position, size, frontier,
  });
  if (inserted === undefined) throw new Error('audit entry insert returned no row');
  return Number(inserted.seq);
}

/**
 * Appends an entry to the lock's trail inside the caller's transaction, holding who its actor and
 * subject are now (read with the tree head, before its lock is granted) and chained to the lock's
 * previous entry, appends it to the Merkle tree over the whole log (tree.ts), announces it on
 * the bus once committed and lets the checkpoint signer know. On PostgreSQL the tree head's row
 * lock, taken first, makes every audit writer take turns (so leaves follow commit order, and each
 * lock's chain is written by one transaction at a time: every entry is written here, after that
 * lock). The listeners (ctx.auditListeners: the webhooks' outbox) write what they keep of the
 * entry in its transaction. The last hash is read in a statement of its own after the lock is
 * granted (on PostgreSQL in the same round trip: startAppend), so under the default READ COMMITTED
 * isolation it sees the entry of the writer it waited for; SQLite runs one write transaction at a time.
 */
export async function recordAudit(ctx: AppContext, uow: UnitOfWork, input: AuditInput): Promise<AuditEntry> {
  const subjectUserId = input.subjectUserId ?? null;
  const { head, previousHash } = await startAppend(uow, input.lockId, input.actorUserId, subjectUserId);
  const tree = frontierOf(head);
  const parties: AuditPartySnapshot = {
    actorEmail: head.actor_email,
    actorDisplayName: head.actor_display_name,
    subjectEmail: head.subject_email,
    subjectDisplayName: head.subject_display_name,
  };
  const rejected = input.rejected === true;
  const details = input.details === undefined ? null : (JSON.parse(JSON.stringify(input.details)) as Record<string, unknown>);
  const fields = {
    version: CURRENT_HASH_VERSION,
    lockId: input.lockId,
    timestamp: input.at === undefined ? ctx.now() : Math.min(input.at, ctx.now()),
    type: input.type,
    actorUserId: input.actorUserId,
    subjectUserId,
    ...parties,
    actorIp: input.client?.actorIp ?? null,
    userAgent: input.client?.userAgent ?? null,
    rejected,
    message: auditMessage(input.type, rejected, input.noReply === true ? undefined : input.message, input.noReply === true),
    details,
  };
  const hash = auditEntryHash(previousHash, fields);
  const id = newId();
  const seq = await insertEntryAndLeaf(uow, {
    id,
    lock_id: fields.lockId,
    timestamp: fields.timestamp,
    type: fields.type,
    actor_user_id: fields.actorUserId,
    subject_user_id: fields.subjectUserId,
    actor_email: fields.actorEmail,
    actor_display_name: fields.actorDisplayName,
    subject_email: fields.subjectEmail,
    subject_display_name: fields.subjectDisplayName,
    actor_ip: fields.actorIp,
    user_agent_type: fields.userAgent?.type ?? null,
    user_agent_version: fields.userAgent?.version ?? null,
    rejected: rejected ? 1 : 0,
    message: fields.message,
    details: details === null ? null : JSON.stringify(details),
    prev_hash: previousHash,
    hash,
    hash_version: fields.version,
  }, tree);
  const entry: AuditEntry = { seq, id, ...fields, previousHash, hash };
  await ctx.auditListeners.recorded(uow, entry);
  uow.onCommit(() => ctx.bus.publish(AUDIT_CHANNEL, { seq, lockId: fields.lockId }));
  uow.onCommit(() => afterAuditCommit(ctx));
  return entry;
}

/** `recordAudit` in a transaction of its own: for refusals, whose other changes were rolled back or never made. */
export function recordAuditNow(ctx: AppContext, input: AuditInput): Promise<AuditEntry> {
  return inTransaction(ctx.db, ctx.logger, (uow) => recordAudit(ctx, uow, input));
}
