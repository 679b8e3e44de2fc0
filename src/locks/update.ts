import type { Updateable } from 'kysely';
import { assertAllowed } from '../access/member-policy.js';
import type { Caller } from '../accounts/caller.js';
import type { AuditClient } from '../audit/log-format.js';
import type { AppContext } from '../context.js';
import { inTransaction } from '../db/transaction.js';
import { errors } from '../errors/catalogue.js';
import { canUpdateLock, permittedAddressesUpdate } from './policy.js';
import { readUsageRequirements } from './json.js';
import { findLockForUpdate, findMembership } from './queries.js';
import { recordSettingChanged } from './settings.js';
import { mergeUsageRequirements } from './usage-update.js';
import type { LockSettingsUpdate, LockUpdate } from './schemas.js';
import type { LockMembersTable, LocksTable } from './tables.js';

/** The request as the route hands it over: usage requirements are checked here, not trusted as typed. */
type SettingsInput = Omit<LockSettingsUpdate, 'usageRequirements'> & { usageRequirements?: unknown };
type UpdateInput = Omit<LockUpdate, 'settings'> & { settings?: SettingsInput | null };

/** The member's own fields of PUT /device/{id} (settings.hidden among them); undefined when the body names none. */
function memberChanges(update: UpdateInput): Updateable<LockMembersTable> | undefined {
  const changes: Updateable<LockMembersTable> = {};
  if (update.name !== undefined) changes.alias = update.name;
  if (update.favourite !== undefined) changes.favourite = update.favourite ? 1 : 0;
  if (update.colour !== undefined) changes.colour = update.colour;
  if (update.settings?.hidden !== undefined) changes.hidden = update.settings.hidden ? 1 : 0;
  return Object.keys(changes).length > 0 ? changes : undefined;
}

/**
 * The lock's settings of PUT /device/{id}, validated (400); undefined when none are named.
 * `currentRequirements` is the stored usage requirements text, which a part-update keeps.
 */
export function lockSettingsChanges(settings: SettingsInput, currentRequirements: string): Updateable<LocksTable> | undefined {
  const changes: Updateable<LocksTable> = {};
  // The lock says where it listens; what its owner decides is whether members may use it.
  if (settings.directAccessEndpoints !== undefined) throw errors.validation('settings.directAccessEndpoints are the LAN addresses the lock announces; its owner allows them with settings.directAccess');
  if (settings.defaultName !== undefined) changes.default_name = settings.defaultName;
  const addresses = permittedAddressesUpdate(settings);
  if (!addresses.ok) throw errors.validation(addresses.message);
  if (addresses.value !== undefined) changes.permitted_addresses = JSON.stringify(addresses.value);
  if (settings.usageRequirements !== undefined) {
    changes.usage_requirements = JSON.stringify(mergeUsageRequirements(readUsageRequirements(currentRequirements), settings.usageRequirements));
  }
  if (settings.txBeaconRssi !== undefined) changes.tx_beacon_rssi = settings.txBeaconRssi;
  if (settings.rxBeaconRssi !== undefined) changes.rx_beacon_rssi = settings.rxBeaconRssi;
  if (settings.proximityUnlock !== undefined) changes.proximity_unlock = settings.proximityUnlock ? 1 : 0;
  if (settings.delay !== undefined) changes.delay = settings.delay;
  if (settings.directAccess !== undefined) changes.direct_access = settings.directAccess ? 1 : 0;
  return Object.keys(changes).length > 0 ? changes : undefined;
}

/** The lock's settings a request changes, as named and sent (`hidden` is the member's own; `permittedAddress` is spelled as shown). */
function changedSettings(settings: SettingsInput): Record<string, unknown> {
  const { hidden: _own, permittedAddress, ...named } = settings as SettingsInput & { permittedAddress?: unknown };
  return { ...(permittedAddress !== undefined ? { permittedAddresses: permittedAddress } : {}), ...named };
}

/**
 * PUT /device/{id}: any member changes their own name (alias), favourite and colour; `settings`
 * need an active ADMIN (403), and the whole request is refused if they are not allowed.
 * Checked in order: membership (404), permission (403), values (400). A change of the lock's
 * settings is audited (SETTING_CHANGED) with the client it came from.
 */
export async function updateLock(ctx: AppContext, caller: Caller, lockId: string, update: UpdateInput, client?: AuditClient): Promise<void> {
  await inTransaction(ctx.db, ctx.logger, async (uow) => {
    const member = await findMembership(uow.db, lockId, caller.userId);
    if (!member) throw errors.notFound('lock');
    const now = ctx.now();
    assertAllowed(canUpdateLock(member, update, now));
    const directAccess = update.settings?.directAccess;
    const lock = update.settings?.usageRequirements === undefined && directAccess === undefined ? undefined : await findLockForUpdate(uow.db, uow.dialect, lockId);
    // Whether the lock answers on its LAN is its owner's choice alone (issue 28 point 3; docs/decisions.md).
    if (directAccess !== undefined && lock?.owner_user_id !== caller.userId) throw errors.forbidden("only the lock's owner may allow unlocking on its LAN");
    const settings = update.settings == null ? undefined : lockSettingsChanges(update.settings, lock?.usage_requirements ?? '{}');
    const own = memberChanges(update);
    if (own) {
      await uow.db.updateTable('lock_members').set({ ...own, updated: now }).where('lock_id', '=', lockId).where('user_id', '=', caller.userId).execute();
    }
    if (settings) {
      await uow.db.updateTable('locks').set({ ...settings, updated: now }).where('id', '=', lockId).execute();
      await recordSettingChanged(ctx, uow, { lockId, actorUserId: caller.userId, changed: changedSettings(update.settings!), ...(client ? { client } : {}) });
    }
  });
}
