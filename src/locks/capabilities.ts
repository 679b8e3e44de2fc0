import type { Static } from '@sinclair/typebox';
import type { SettingsCapabilities } from './schemas.js';

/**
 * `settings.capabilities` (the official SDK's CapabilityType → CapabilityStatus): what every lock
 * the service serves does, since the service and the device protocol do it for all of them:
 * - CONFIGURABLE_UNLOCK_DURATION: MUTATE_SETTING `unlockDuration`, carried in the lock's config
 *   (`unlockDuration`, how long an unlock lasts);
 * - OPEN_HOURS: MUTATE_SETTING `unlockBetween`, carried in the lock's config (`unlockBetween`);
 * - BATCH_SHARING_25: BATCH_ADD_USER of up to 25 users (src/operations/add-user.ts, shareAll),
 *   which the SDK sends only to a lock naming it (else one ADD_USER per user).
 * A capability is named here only once the service does it for every lock.
 */
export const SETTINGS_CAPABILITIES: Static<typeof SettingsCapabilities> = {
  CONFIGURABLE_UNLOCK_DURATION: 'SUPPORTED',
  OPEN_HOURS: 'SUPPORTED',
  BATCH_SHARING_25: 'SUPPORTED',
};
