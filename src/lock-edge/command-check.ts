import type { KeyObject } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { isMemberActive, isWithinSchedule, mayUnlockFor } from '../access/member-policy.js';
import { createTrustAnchor, type TrustAnchor } from '../crypto/chain.js';
import { isAppError } from '../errors/catalogue.js';
import { parseLegacyPublicKey, sameId, verifyOperationSignature } from '../crypto/operation-token.js';
import { decodeOperationToken } from '../operations/body.js';
import { checkOperationClaims, replayKey } from '../operations/claims.js';
import { parseOperation, type Operation } from '../operations/parse-operation.js';
import { parseLockdownOperation, type LockdownFamilyOperation } from '../operations/lockdown-operation.js';
import type { CommandPayload, ConfigUser, LockConfig } from '../device-protocol/payloads.js';
import { ReplayMemory } from './replay-memory.js';

/**
 * The lock's own check of a command (defence in depth, docs/device-protocol.md §5): whoever can
 * publish on the broker still needs a token signed by a user enrolled in the lock's config, for
 * this lock, valid now, never used before. Uses the service's own decoding and signature code so
 * lock and service agree on every edge case. The simulator and the bridge (src/bridge/) both check
 * with it, each with its own replay memory (the bridge's kept on disk).
 */

export type CheckResult = { ok: true; userId: string; operation: Operation } | { ok: false; error: string };

/** A lockdown's token checked by the lock: who signed it, with which role in the config, and what it says. */
export type LockdownCheck = { ok: true; userId: string; role: 'ADMIN' | 'USER'; operation: LockdownFamilyOperation } | { ok: false; error: string };

/** Refusal reasons a lock sends in `reply.error` (`<code>: <detail>`). */
const refuse = (code: string, detail: string): { ok: false; error: string } => ({ ok: false, error: `${code}: ${detail}` });

/** Protocol 1.2: the refusal of a command whose `deadline` has passed on the lock's clock. */
export const DEADLINE_PASSED = 'deadline_passed: the command arrived or was carried out after its deadline';

/** Whether `command` carries a deadline (protocol 1.2) that `now` (Unix seconds) is past. */
export function isPastDeadline(command: Pick<CommandPayload, 'deadline'>, now: number): boolean {
  return command.deadline !== undefined && now > command.deadline;
}

/**
 * A lock's trust anchor for its root CA. Its cache of verified certificate chains holds what one
 * lock meets (its members' keys), not the service's 10,000: lru-cache allocates its slots up
 * front, and 10,000 of them were most of the ≈ 500 KiB each simulated lock took in the fleet
 * benchmark's load generator, and of its start. An anchor made already (one for many locks of one
 * process, as the bridge or the load generator may hold) is used as it is.
 */
export function lockTrustAnchor(root: string | TrustAnchor): TrustAnchor {
  return typeof root === 'string' ? createTrustAnchor(root, { chainCacheSize: 256 }) : root;
}

export class CommandChecker {
  private readonly replays: ReplayMemory;
  private readonly anchor: TrustAnchor | undefined;
  /** Each config user's RS256 key, imported once per config (a new config brings new objects; old ones are collected). */
  private readonly legacyKeys = new WeakMap<ConfigUser, KeyObject | null>();

  /**
   * `trustedRoot`: the root CA the lock was provisioned with, if any (Base64 DER, or made into a
   * trust anchor already: see lockTrustAnchor). `replays`: where used tokens are remembered
   * (default: in memory, for this object's life).
   */
  constructor(private readonly options: { lockId: string; trustedRoot?: string | TrustAnchor; now: () => number; replays?: ReplayMemory }) {
    this.replays = options.replays ?? new ReplayMemory();
    this.anchor = options.trustedRoot === undefined ? undefined : lockTrustAnchor(options.trustedRoot);
  }

  async check(command: CommandPayload, config: LockConfig | null): Promise<CheckResult> {
    try {
      return await this.checkOrThrow(command, config);
    } catch (err) {
      if (isAppError(err)) return refuse(err.error, err.message);
      throw err;
    }
  }

  private async checkOrThrow(command: CommandPayload, config: LockConfig | null): Promise<CheckResult> {
    const now = this.options.now();
    // Before anything is remembered: a command past its deadline was answered 504 already and is never acted on.
    if (isPastDeadline(command, now)) return { ok: false, error: DEADLINE_PASSED };
    const decoded = decodeOperationToken(command.token);
    const claims = checkOperationClaims(decoded.payload, { lockId: this.options.lockId, now });
    if (config === null) return refuse('not_enrolled', 'the lock has no configuration');
    const user = config.users.find((candidate) => sameId(candidate.userId, claims.iss));
    if (user === undefined) return refuse('not_enrolled', 'the signer is not a user of this lock');
    if (!isMemberActive(user, now)) return refuse('outside_user_window', 'the signer\'s access is not active now');
    if (decoded.header.alg === 'EdDSA' && this.anchor === undefined) return refuse('bad_signature', 'no trusted root provisioned');
    const legacyPublicKey = decoded.header.alg === 'RS256' ? this.legacyKeyOf(user) : undefined;
    // trustedRoot is read only for EdDSA, which the line above guarantees has one.
    await verifyOperationSignature(decoded, { legacyPublicKey, trustedRoot: this.anchor as TrustAnchor, now });

    // Checked on the verified claims; refused before the replay memory, as the service does not consume a refused token.
    const { operation } = claims;
    if (operation.type === 'MUTATE_LOCK' && !mayUnlockFor(user, operation.duration, config.unlockDuration)) {
      return refuse('duration_not_allowed', 'a USER may not unlock for longer than the unlock duration');
    }
    if (operation.type === 'MUTATE_LOCK' && !isWithinSchedule(user, now)) return refuse('outside_user_schedule', 'outside the signer\'s own hours on this lock');
    // Only a verified token may occupy replay memory, so forged ones cannot fill it.
    const remembered = this.replays.remember(replayKey(decoded.payload, command.token, claims.iss), claims.exp, now);
    if (remembered === 'replayed') return refuse('replayed', 'this token was already used');
    if (remembered === 'full') return refuse('busy', 'replay memory full');

    // The token's operation is what the lock acts on; the copy beside it must say the same.
    let sent: Operation;
    try {
      sent = parseOperation(command.operation);
    } catch {
      return refuse('operation_mismatch', 'the command\'s operation is invalid');
    }
    if (!isDeepStrictEqual(sent, claims.operation)) return refuse('operation_mismatch', 'the command\'s operation differs from the signed one');
    return { ok: true, userId: claims.iss, operation: claims.operation };
  }

  /**
   * A lockdown's declaration or lift, as it comes in the config (device protocol 1.4): signed by a
   * user of the config, naming this lock among its `locks`. A lift is checked as a command's token
   * is, at the lock's now. A declaration is checked as of its own `iat` (claims and certificate
   * chain): it may reach a lock that was offline long after it was signed, and locking down late
   * is the safe failure, where ignoring it is not. Nothing is remembered: the same tokens come with
   * every config.
   */
  async checkLockdown(token: string, config: LockConfig): Promise<LockdownCheck> {
    try {
      const decoded = decodeOperationToken(token);
      const { payload } = decoded;
      const declaration = (payload.operation as { type?: unknown } | null)?.type === 'LOCKDOWN';
      const at = declaration && typeof payload.iat === 'number' && Number.isFinite(payload.iat) && payload.iat >= 0 ? Math.min(payload.iat, this.options.now()) : this.options.now();
      const claims = checkOperationClaims(payload, { lockId: typeof payload.sub === 'string' ? payload.sub : '', now: at }, parseLockdownOperation);
      if (!claims.operation.locks.some((id) => sameId(id, this.options.lockId))) return refuse('bad_request', 'the lockdown does not name this lock');
      const user = config.users.find((candidate) => sameId(candidate.userId, claims.iss));
      if (user === undefined) return refuse('not_enrolled', 'the signer is not a user of this lock');
      if (!isMemberActive(user, this.options.now())) return refuse('outside_user_window', 'the signer\'s access is not active now');
      if (decoded.header.alg === 'EdDSA' && this.anchor === undefined) return refuse('bad_signature', 'no trusted root provisioned');
      const legacyPublicKey = decoded.header.alg === 'RS256' ? this.legacyKeyOf(user) : undefined;
      await verifyOperationSignature(decoded, { legacyPublicKey, trustedRoot: this.anchor as TrustAnchor, now: at });
      return { ok: true, userId: claims.iss.toLowerCase(), role: user.role, operation: claims.operation };
    } catch (err) {
      if (isAppError(err)) return { ok: false, error: `${err.error}: ${err.message}` };
      throw err;
    }
  }

  private legacyKeyOf(user: ConfigUser): KeyObject | undefined {
    if (user.publicKey === null) return undefined;
    let key = this.legacyKeys.get(user);
    if (key === undefined) this.legacyKeys.set(user, (key = parseLegacyPublicKey(user.publicKey)));
    return key ?? undefined;
  }
}
