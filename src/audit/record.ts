import { sql, type Insertable, type QueryCreator } from 'kysely';
import type { AppContext } from '../context.js';
import { newId } from '../crypto/random.js';
import type { DialectName } from '../db/database.js';
import type { DatabaseSchema } from '../db/schema.js';
import { prepareQuery } from '../db/prepared.js';
import { inTransaction, runAfterCommit, type Executor, type UnitOfWork } from '../db/transaction.js';
import { CURRENT_HASH_VERSION, GENESIS_HASH, auditEntryHash, type AuditClient, type AuditPartySnapshot } from './chain.js';
import { AUDIT_CHANNEL } from './channel.js';
import { auditEntryPreimagePieces } from './log-format.js';
import { afterAuditCommit } from './checkpoint-signer.js';
import type { Frontier } from './merkle.js';
import { appendLeaf, frontierOf, HEAD_ID, type HeadRow } from './tree.js';
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

/** SQLite: the head with the parties, and the lock's previous hash (see above). */
async function startAppend(uow: UnitOfWork, lockId: string, actorId: string | null, subjectId: string | null): Promise<{ head: HeadAndPartiesRow; previousHash: string }> {
  const head = await readHeadReadingParties.takeFirst(uow.db, uow.dialect, { actorId, subjectId });
  if (head === undefined) throw new Error('audit tree head is missing (migration 0008 not run?)');
  return { head, previousHash: await lastHashOf(uow.db, uow.dialect, lockId) };
}

/** The entry's insert (SQLite). */
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

/** Inserts the entry and appends its leaf to `tree` (read with the head in this transaction); answers its seq (SQLite). */
async function insertEntryAndLeaf(uow: UnitOfWork, row: Insertable<AuditEntriesTable> & { hash: string }, tree: Frontier): Promise<number> {
  const { insertId } = await insertEntry.execute(uow.db, uow.dialect, row);
  if (insertId === undefined) throw new Error('audit entry insert answered no rowid');
  await appendLeaf(uow.db, uow.dialect, tree, { seq: Number(insertId), hash: row.hash });
  return Number(insertId);
}

/** An entry's fields as the recorder computes them before any read: all but the parties, the previous hash and the hash. */
type OwnFields = Omit<AuditEntry, keyof AuditPartySnapshot | 'seq' | 'previousHash' | 'hash'>;

function ownFields(ctx: AppContext, input: AuditInput): OwnFields {
  const rejected = input.rejected === true;
  return {
    id: newId(),
    version: CURRENT_HASH_VERSION,
    lockId: input.lockId,
    timestamp: input.at === undefined ? ctx.now() : Math.min(input.at, ctx.now()),
    type: input.type,
    actorUserId: input.actorUserId,
    subjectUserId: input.subjectUserId ?? null,
    actorIp: input.client?.actorIp ?? null,
    userAgent: input.client?.userAgent ?? null,
    rejected,
    message: auditMessage(input.type, rejected, input.noReply === true ? undefined : input.message, input.noReply === true),
    details: input.details === undefined ? null : (JSON.parse(JSON.stringify(input.details)) as Record<string, unknown>),
  };
}

/** The entry's own fields as the row's columns hold them (both engines' inserts). */
function ownColumns(fields: OwnFields) {
  return {
    actorIp: fields.actorIp,
    userAgentType: fields.userAgent?.type ?? null,
    userAgentVersion: fields.userAgent?.version ?? null,
    rejected: (fields.rejected ? 1 : 0) as 0 | 1,
    details: fields.details === null ? null : JSON.stringify(fields.details),
  };
}

/** The arguments of migration 0230's audit_append, by name. */
export type AppendSlots = {
  lockId: string; actorId: string | null; subjectId: string | null; id: string; timestamp: number; type: string;
  actorIp: string | null; userAgentType: string | null; userAgentVersion: string | null; rejected: 0 | 1; message: string;
  details: string | null; version: number; preimage: string[]; outbox: boolean;
};

/** What audit_append answers. */
export type AppendedRow = {
  seq: number; hash: string; prev_hash: string; actor_email: string | null; actor_display_name: string | null;
  subject_email: string | null; subject_display_name: string | null; outboxed: boolean;
};

/**
 * PostgreSQL: the call of migration 0230's function, which appends the entry in the database in
 * one round trip (the head's lock with the parties, the last hash, the chain hash, the entry, its
 * Merkle nodes, the head, the webhooks' outbox row).
 */
const appendInDatabase = prepareQuery<AppendSlots, AppendedRow>((db, slot) => db.selectFrom(sql<AppendedRow>`audit_append(${slot.lockId}, ${slot.actorId},
    ${slot.subjectId}, ${slot.id}, cast(${slot.timestamp} as double precision), ${slot.type}, ${slot.actorIp}, ${slot.userAgentType},
    ${slot.userAgentVersion}, cast(${slot.rejected} as integer), ${slot.message}, ${slot.details}, cast(${slot.version} as integer),
    cast(${slot.preimage} as text[]), cast(${slot.outbox} as boolean))`.as('appended')).selectAll());

/** What the entry of `input` hands audit_append (PostgreSQL), and its fields. */
export function appendSlots(ctx: AppContext, input: AuditInput): { slots: AppendSlots; fields: OwnFields } {
  const fields = ownFields(ctx, input);
  const { id: _id, ...hashed } = fields;
  return {
    fields,
    slots: {
      lockId: fields.lockId, actorId: fields.actorUserId, subjectId: fields.subjectUserId, id: fields.id, timestamp: fields.timestamp, type: fields.type,
      ...ownColumns(fields), message: fields.message,
      version: fields.version, preimage: auditEntryPreimagePieces(hashed), outbox: ctx.auditListeners.outboxWanted(fields),
    },
  };
}

/**
 * The entry audit_append wrote (PostgreSQL), its outbox row's follower told and its announcements
 * queued on `hooks` (the statement's transaction, or a statement committed alone).
 */
function appendedEntry(ctx: AppContext, hooks: Pick<UnitOfWork, 'onCommit'>, fields: OwnFields, row: AppendedRow): AuditEntry {
  const entry: AuditEntry = {
    ...fields,
    seq: Number(row.seq),
    actorEmail: row.actor_email,
    actorDisplayName: row.actor_display_name,
    subjectEmail: row.subject_email,
    subjectDisplayName: row.subject_display_name,
    previousHash: row.prev_hash,
    hash: row.hash,
  };
  if (row.outboxed) ctx.auditListeners.outboxWritten(hooks, entry);
  announce(ctx, hooks, entry);
  return entry;
}

/**
 * PostgreSQL: the entry audit_append wrote in a statement committed alone (autocommit, no
 * transaction of ours), with its after-commit effects run now that it has committed.
 */
export async function appendedAlone(ctx: AppContext, fields: OwnFields, row: AppendedRow | undefined): Promise<AuditEntry> {
  if (row === undefined) throw new Error('audit_append answered no row');
  const effects: Array<() => unknown> = [];
  const entry = appendedEntry(ctx, { onCommit: (effect) => effects.push(effect) }, fields, row);
  await runAfterCommit(effects, ctx.logger);
  return entry;
}

function announce(ctx: AppContext, hooks: Pick<UnitOfWork, 'onCommit'>, entry: AuditEntry): void {
  hooks.onCommit(() => ctx.bus.publish(AUDIT_CHANNEL, { seq: entry.seq, lockId: entry.lockId }));
  hooks.onCommit(() => afterAuditCommit(ctx));
}

/**
 * Appends an entry to the lock's trail inside the caller's transaction, holding who its actor and
 * subject are now (read with the tree head, before its lock is granted) and chained to the lock's
 * previous entry, appends it to the Merkle tree over the whole log (tree.ts), has the webhooks'
 * outbox keep it (ctx.auditListeners), announces it on the bus once committed and lets the
 * checkpoint signer know. On PostgreSQL all of it is one call of migration 0230's audit_append
 * (issue 33 point 3), whose hashing test/audit/append-in-database.test.ts keeps equal to this
 * file's; there the tree head's row lock, taken first, makes every audit writer take turns (so
 * leaves follow commit order, and each lock's chain is written by one transaction at a time), and
 * the last hash is read in a statement of its own after the lock is granted, so under the default
 * READ COMMITTED isolation it sees the entry of the writer it waited for. SQLite runs one write
 * transaction at a time.
 */
export async function recordAudit(ctx: AppContext, uow: UnitOfWork, input: AuditInput): Promise<AuditEntry> {
  if (uow.dialect === 'postgres') {
    const { slots, fields } = appendSlots(ctx, input);
    const row = await appendInDatabase.takeFirst(uow.db, uow.dialect, slots);
    if (row === undefined) throw new Error('audit_append answered no row');
    return appendedEntry(ctx, uow, fields, row);
  }
  const own = ownFields(ctx, input);
  const { id, ...fields } = own;
  const columns = ownColumns(own);
  const { head, previousHash } = await startAppend(uow, input.lockId, fields.actorUserId, fields.subjectUserId);
  const tree = frontierOf(head);
  const parties: AuditPartySnapshot = {
    actorEmail: head.actor_email,
    actorDisplayName: head.actor_display_name,
    subjectEmail: head.subject_email,
    subjectDisplayName: head.subject_display_name,
  };
  const hashed = { ...fields, ...parties };
  const hash = auditEntryHash(previousHash, hashed);
  const seq = await insertEntryAndLeaf(uow, {
    id,
    lock_id: fields.lockId,
    timestamp: fields.timestamp,
    type: fields.type,
    actor_user_id: fields.actorUserId,
    subject_user_id: fields.subjectUserId,
    actor_email: parties.actorEmail,
    actor_display_name: parties.actorDisplayName,
    subject_email: parties.subjectEmail,
    subject_display_name: parties.subjectDisplayName,
    actor_ip: columns.actorIp,
    user_agent_type: columns.userAgentType,
    user_agent_version: columns.userAgentVersion,
    rejected: columns.rejected,
    message: fields.message,
    details: columns.details,
    prev_hash: previousHash,
    hash,
    hash_version: fields.version,
  }, tree);
  const entry: AuditEntry = { seq, id, ...hashed, previousHash, hash };
  await ctx.auditListeners.recorded(uow, entry);
  announce(ctx, uow, entry);
  return entry;
}

/** `recordAudit` in a transaction of its own: for refusals, whose other changes were rolled back or never made. */
export function recordAuditNow(ctx: AppContext, input: AuditInput): Promise<AuditEntry> {
  return inTransaction(ctx.db, ctx.logger, (uow) => recordAudit(ctx, uow, input));
}
