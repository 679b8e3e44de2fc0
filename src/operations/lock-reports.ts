import type { AppContext } from '../context.js';
import type { AuditType } from '../audit/types.js';
import { recordAudit } from '../audit/record.js';
import { findUserById } from '../accounts/queries.js';
import { checkOperationSignature, parseLegacyPublicKey, sameId } from '../crypto/operation-token.js';
import { inTransaction, type UnitOfWork } from '../db/transaction.js';
import { unlockRefused } from '../alarms/conditions.js';
import type { OperationReport } from '../device-protocol/payloads.js';
import { isAppError } from '../errors/catalogue.js';
import { isMoveOvertaken } from '../locks/report-order.js';
import { readLockedForUpdate, storeLocked } from '../locks/state.js';
import { decodeOperationToken } from './body.js';
import { replayKey } from './claims.js';
import { rememberReplayKey } from './replay.js';

/**
 * What a lock did on its own (handed over by the lock link: src/subscribers.ts wires it as a hook of src/lock-link/subscribers.ts) (device protocol 1.3 `operation`), audited once: an unlock or lock
 * on its LAN (the official SDK's directAccessEndpoints), at its keypad or by hand. The entry is
 * DOOR_UNLOCK / DOOR_LOCK with the time it happened; `details` say the source, the keypad's
 * user-code slot, the report id. A LAN operation is the signer's only when the token it carries
 * verifies (its signature as of its `iat`, `sub` this lock, the operation the one reported), so a
 * lock cannot put a user's name on what it did; its `jti` is remembered, so the service path
 * refuses the same token afterwards. Keypad and manual operations have no user (issue 30 will
 * attribute a slot to a code holder).
 *
 * A report heard while it is fresh also moves the stored bolt, so the state report that follows
 * it (the lock sends the report first) is no second change audited without a user; a report held
 * back while the service was unreachable leaves the live state to the lock's current report.
 */

/** A report at most this old (service clock, seconds) is taken as the lock's live news. */
const FRESH_SECONDS = 10;

/** Recorded reports are kept this long, far beyond any redelivery. */
const KEEP_REPORT_SECONDS = 7 * 24 * 3600;

interface LanSigner {
  userId: string;
  replayKey: string;
  expiresAt: number;
  jti: string | null;
}

/** The signer of a LAN report's token, or why it cannot be trusted. */
async function lanSigner(ctx: AppContext, lockId: string, report: OperationReport): Promise<LanSigner | string> {
  if (report.token === undefined) return 'no token';
  let decoded;
  try {
    decoded = decodeOperationToken(report.token);
  } catch {
    return 'token unreadable';
  }
  const { iss, sub, iat, exp, jti, operation } = decoded.payload as Record<string, unknown>;
  if (typeof iss !== 'string' || iss === '' || iss.length > 64) return 'no iss';
  if (typeof sub !== 'string' || !sameId(sub, lockId)) return 'sub is another lock';
  if (typeof iat !== 'number' || typeof exp !== 'number') return 'no iat or exp';
  const op = operation as { type?: unknown; locked?: unknown } | null;
  if (op === null || typeof op !== 'object' || op.type !== 'MUTATE_LOCK' || op.locked !== report.locked) return 'not the operation reported';
  const userId = iss.toLowerCase();
  const stored = decoded.header.alg === 'RS256' ? (await findUserById(ctx.db.kysely, userId))?.public_key : undefined;
  const signer = await checkOperationSignature(decoded, { legacyPublicKey: (stored && parseLegacyPublicKey(stored)) || undefined, trustedRoot: ctx.pki.anchor, now: iat });
  if (isAppError(signer)) return `signature: ${signer.message}`;
  return { userId, replayKey: replayKey(decoded.payload, report.token, iss), expiresAt: exp, jti: typeof jti === 'string' ? jti : null };
}

function describe(report: OperationReport): string {
  const verb = report.locked ? 'locked' : 'unlocked';
  if (report.source === 'lan') return `lock ${verb} on its LAN`;
  if (report.source === 'keypad') return `lock ${verb} at the keypad${report.slot === undefined ? '' : ` (user code slot ${report.slot})`}`;
  return `lock ${verb} by hand`;
}

/** How a keypad report reads once its code is known (src/keypad-codes/uses.ts, wired in src/subscribers.ts). */
export interface OperationAttribution {
  actorUserId: string | null;
  /** A refused entry (protocol 1.5 `refused`): a refused DOOR_UNLOCK, no bolt moved. */
  rejected: boolean;
  message: string;
  details: Record<string, unknown>;
}

/** Names the code (and its holder) of a keypad report, in the transaction that records it. */
export type AttributeOperation = (uow: UnitOfWork, lockId: string, report: OperationReport) => Promise<OperationAttribution | null>;

/** Records `report` of lock `lockId`; the type audited, or null (a duplicate, an unknown lock, an untrusted LAN report). */
export async function recordOperationReport(ctx: AppContext, lockId: string, report: OperationReport, attribute?: AttributeOperation): Promise<AuditType | null> {
  const signer = report.source === 'lan' ? await lanSigner(ctx, lockId, report) : null;
  if (typeof signer === 'string') {
    ctx.logger.warn({ lockId, reportId: report.id, reason: signer }, 'LAN operation report not trusted: not audited');
    return null;
  }
  return inTransaction(ctx.db, ctx.logger, async (uow) => {
    const now = ctx.now();
    const row = await readLockedForUpdate(uow.db, uow.dialect, lockId);
    if (!row) return null;
    const inserted = await uow.db
      .insertInto('lock_operation_reports')
      .values({ lock_id: lockId, report_id: report.id, recorded_at: now })
      .onConflict((oc) => oc.columns(['lock_id', 'report_id']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) !== 1) return null;
    if (signer !== null) await rememberReplayKey(uow.db, { lockId, replayKey: signer.replayKey, expiresAt: signer.expiresAt, now });
    const attributed = report.source === 'keypad' && attribute !== undefined ? await attribute(uow, lockId, report) : null;
    const rejected = attributed?.rejected === true;
    // Fresh and not overtaken by a later state another instance recorded first (issue 33 point 2).
    if (!rejected && now - report.ts <= FRESH_SECONDS && row.locked !== null && !(await isMoveOvertaken(ctx, uow, lockId, report.ts))) {
      await storeLocked(uow.db, uow.dialect, lockId, report.locked, now);
    }
    const type: AuditType = report.locked ? 'DOOR_LOCK' : 'DOOR_UNLOCK';
    // A refused keypad entry counts toward the refused-unlocks alarm, like any refused unlock.
    if (rejected && type === 'DOOR_UNLOCK') uow.onCommit(() => unlockRefused(ctx, lockId));
    await recordAudit(ctx, uow, {
      lockId,
      type,
      actorUserId: signer?.userId ?? attributed?.actorUserId ?? null,
      rejected,
      message: attributed?.message ?? describe(report),
      at: report.ts,
      details: {
        ...attributed?.details,
        source: report.source,
        ...(report.slot === undefined ? {} : { slot: report.slot }),
        ...(signer === null ? {} : { jti: signer.jti }),
        reportId: report.id,
        happenedAt: report.ts,
      },
    });
    // Now and then, forget reports no lock will send again.
    if (Math.random() < 0.01) await uow.db.deleteFrom('lock_operation_reports').where('recorded_at', '<', now - KEEP_REPORT_SECONDS).execute();
    return type;
  });
}
