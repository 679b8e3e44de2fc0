import type { LockConfig } from '../device-protocol/payloads.js';
import type { CommandChecker } from './command-check.js';
import type { LockLog } from './lock-endpoint.js';
import { LockdownStore, type HeldLockdown } from './lockdown-store.js';

/**
 * A lock's own enforcement of a lockdown (issue 31 point 3, device protocol 1.4). The config
 * brings the declaration and the lifts as the administrators signed them; the lock believes only
 * what it verifies itself (CommandChecker.checkLockdown), and keeps the lockdown in force (on disk:
 * LockdownStore) until lifts of `quorum` distinct administrators arrive, whatever config follows.
 * While one is in force only its responders' unlocks are carried out. One lockdown at a time: a
 * declaration arriving while another holds is ignored, so no single key can replace a lockdown of
 * quorum 3 by one of quorum 1.
 */
export class LockdownGuard {
  private readonly store: LockdownStore;

  constructor(private readonly checker: CommandChecker, private readonly log: LockLog, file?: string) {
    this.store = new LockdownStore(file ?? null);
  }

  get active(): HeldLockdown | null {
    return this.store.active;
  }

  /** Whether `userId`'s verified unlock may be carried out. */
  mayUnlock(userId: string): boolean {
    const active = this.store.active;
    return active === null || active.responders.includes(userId.toLowerCase());
  }

  /** Applies the lockdown part of a newly applied config: what changed, if anything. */
  async apply(config: LockConfig): Promise<'declared' | 'lifted' | 'declared_and_lifted' | null> {
    const lockdown = config.lockdown;
    if (lockdown === undefined || lockdown === null) return null;
    let declared = false;
    if (this.store.active === null) {
      const checked = await this.checker.checkLockdown(lockdown.token, config);
      if (!checked.ok) this.log('lockdown_ignored', { reason: checked.error });
      else if (checked.operation.type !== 'LOCKDOWN' || checked.role !== 'ADMIN') this.log('lockdown_ignored', { reason: 'not a declaration by an administrator' });
      else if (!this.store.wasLifted(checked.operation.lockdownId)) {
        const { lockdownId, responders, liftQuorum } = checked.operation;
        this.store.declare({ id: lockdownId, declaredBy: checked.userId, responders, quorum: liftQuorum });
        this.log('lockdown', { id: lockdownId, by: checked.userId, responders: responders.length, quorum: liftQuorum });
        declared = true;
      }
    }
    const active = this.store.active;
    if (active === null || lockdown.lifts.length === 0) return declared ? 'declared' : null;
    const signers = new Set<string>();
    for (const lift of lockdown.lifts) {
      const checked = await this.checker.checkLockdown(lift, config);
      if (!checked.ok) this.log('lockdown_lift_ignored', { reason: checked.error });
      else if (checked.operation.type === 'LIFT_LOCKDOWN' && checked.operation.lockdownId === active.id && checked.role === 'ADMIN') signers.add(checked.userId);
    }
    if (signers.size < active.quorum) {
      this.log('lockdown_held', { id: active.id, lifts: signers.size, quorum: active.quorum });
      return declared ? 'declared' : null;
    }
    this.store.lift();
    this.log('lockdown_lifted', { id: active.id, lifts: signers.size, quorum: active.quorum });
    return declared ? 'declared_and_lifted' : 'lifted';
  }
}
