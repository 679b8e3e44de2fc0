import { sql, type Insertable, type Kysely } from 'kysely';
import type { AppContext } from '../context.js';
import { newId } from '../crypto/random.js';
import type { DialectName } from '../db/database.js';
import type { DatabaseSchema } from '../db/schema.js';
import { prepareQuery } from '../db/prepared.js';
import { inTransaction, type Executor, type UnitOfWork } from '../db/transaction.js';
import { CURRENT_HASH_VERSION, GENESIS_HASH, auditEntryHash, type AuditClient, type AuditPartySnapshot } from './chain.js';
import { afterAuditCommit } from './checkpoint-signer.js';
import { appendLeaf, lockTreeHead } from './tree.js';
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

/** The bus channel on which every committed entry is announced as `{ seq, lockId }`. */
export const AUDIT_CHANNEL = 'audit';

/** Arbitrary constant: the first key of the audit chain's advisory locks, so they share no key space with others. */
const AUDIT_ADVISORY_SPACE = 0x41554454; // "AUDT"

// Prepared (src/db/prepared.ts): every lock and unlock appends an entry. The limit is written
// into the SQL: SQLite (built with STAT4) prepares a statement anew whenever a LIMIT parameter
// is bound, which doubled this read's cost (docs/decisions.md, Performance).
const lastEntryHash = prepareQuery<{ lockId: string }, { hash: string }>((db, slot) =>
  db.selectFrom('audit_entries').select('hash').where('lock_id', '=', slot.lockId).orderBy('seq', 'desc').limit(sql.lit(1)));

type PartyRow = { id: string; email: string | null; display_name: string | null };
// The actor's or the subject's row (an unlock has no subject), or both.
const partyRow = prepareQuery<{ id: string }, PartyRow>((db, slot) => db.selectFrom('users').select(['id', 'email', 'display_name']).where('id', '=', slot.id));
const partyRows = prepareQuery<{ first: string; second: string }, PartyRow>((db, slot) =>
  db.selectFrom('users').select(['id', 'email', 'display_name']).where('id', 'in', [slot.first, slot.second]));

/** The entry's insert, built once for both statements below. */
function entryInsert(db: Kysely<DatabaseSchema>, slot: Insertable<AuditEntriesTable>) {
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
// temporary table first, a third of the insert's cost. PostgreSQL has no rowid.
const insertEntry = prepareQuery<Insertable<AuditEntriesTable>>(entryInsert);
const insertEntryReturningSeq = prepareQuery<Insertable<AuditEntriesTable>, { seq: number }>((db, slot) => entryInsert(db, slot).returning('seq'));

/** Inserts the entry; answers its seq. */
async function insertEntryRow(uow: UnitOfWork, row: Insertable<AuditEntriesTable>): Promise<number> {
  if (uow.dialect === 'sqlite') {
    const { insertId } = await insertEntry.execute(uow.db, uow.dialect, row);
    if (insertId === undefined) throw new Error('audit entry insert answered no rowid');
    return Number(insertId);
  }
  const inserted = await insertEntryReturningSeq.takeFirst(uow.db, uow.dialect, row);
  if (inserted === undefined) throw new Error('audit entry insert returned no row');
  return inserted.seq;
}

async function lastHashOf(db: Executor, dialect: DialectName, lockId: string): Promise<string> {
  return (await lastEntryHash.takeFirst(db, dialect, { lockId }))?.hash ?? GENESIS_HASH;
}

/**
 * Who the actor and the subject are as their user rows read now, inside the recording
 * transaction: what the entry keeps and hashes, so that it reads the same once they change their
 * name or address or delete their account. No row (the lock itself, the service, a user already
 * gone): nulls.
 */
async function partiesOf(uow: UnitOfWork, actorUserId: string | null, subjectUserId: string | null): Promise<AuditPartySnapshot> {
  const ids = [...new Set([actorUserId, subjectUserId].filter((id): id is string => id !== null))];
  const rows =
    ids.length === 0 ? []
    : ids.length === 1 ? (await partyRow.execute(uow.db, uow.dialect, { id: ids[0]! })).rows
    : (await partyRows.execute(uow.db, uow.dialect, { first: ids[0]!, second: ids[1]! })).rows;
  const actor = rows.find((row) => row.id === actorUserId);
  const subject = rows.find((row) => row.id === subjectUserId);
  return {
    actorEmail: actor?.email ?? null,
    actorDisplayName: actor?.display_name ?? null,
    subjectEmail: subject?.email ?? null,
    subjectDisplayName: subject?.display_name ?? null,
  };
}

/**
 * Appends an entry to the lock's trail inside the caller's transaction, holding who its actor and
 * subject are now (partiesOf, read before any audit lock is taken) and chained to the lock's
 * previous entry, appends it to the Merkle tree over the whole log (tree.ts), announces it on
 * the bus once committed and lets the checkpoint signer know. On PostgreSQL the tree head's row
 * lock, taken first, makes every audit writer take turns (so leaves follow commit order); the
 * advisory lock per lock id after it keeps the chain's own guarantee explicit. The listeners
 * (ctx.auditListeners: the webhooks' outbox) write what they keep of the entry in its transaction. The reads after
 * them see the last committed entry under the default READ COMMITTED isolation; SQLite runs one
 * write transaction at a time.
 */
export async function recordAudit(ctx: AppContext, uow: UnitOfWork, input: AuditInput): Promise<AuditEntry> {
  const subjectUserId = input.subjectUserId ?? null;
  const parties = await partiesOf(uow, input.actorUserId, subjectUserId);
  const tree = await lockTreeHead(uow.db, uow.dialect);
  if (ctx.db.dialect === 'postgres') {
    await sql`SELECT pg_advisory_xact_lock(${AUDIT_ADVISORY_SPACE}::int4, hashtext(${input.lockId}))`.execute(uow.db);
  }
  const previousHash = await lastHashOf(uow.db, uow.dialect, input.lockId);
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
  const seq = await insertEntryRow(uow, {
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
  });
  await appendLeaf(uow.db, uow.dialect, tree, { seq, hash });
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
