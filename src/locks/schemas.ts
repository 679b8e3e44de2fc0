import { Type, type Static } from '@sinclair/typebox';
import { LocationRequirementSchema, scheduleSchema, UnlockBetweenWindowSchema as UnlockBetweenWindowRule, UsageRequirementsSchema as UsageRequirementsRule } from '../access/schemas.js';
import type { TimeRequirement, UnlockBetweenWindow } from '../access/types.js';
import { PlainText } from '../http/plain-text.js';

/** Request and response shapes of the lock endpoints (spec "Lock", "Lock settings", "Users"). */

export const Colour = Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: 'hex colour #RRGGBB' });
/** A lock's name or alias: plain text, as every name shown to others (src/http/plain-text.ts). */
export const Name = PlainText({ minLength: 1, maxLength: 255 });
// Same JSON schemas as src/access, typed by its hand-written types (the Fastify type provider
// cannot infer a union built from an array of literals and would see `days: never[]`).
/**
 * PUT's usage requirements: each part optional, `location` nullable (removes it), and open to the
 * official SDK's `type` member (its class name); checked again whole in usage-update.ts.
 */
const UsageRequirementsUpdateSchema = Type.Unsafe<UsageRequirementsUpdate>(
  Type.Object({
    time: Type.Optional(UsageRequirementsRule.properties.time),
    location: Type.Optional(Type.Union([LocationRequirementSchema, Type.Null()])),
  }),
);
/** As shown: a location requirement always has `enabled` and whole-metre `radius` and `accuracy` (the SDK's model requires them). */
const LocationRequirementResponse = Type.Object({
  latitude: Type.Number(),
  longitude: Type.Number(),
  enabled: Type.Boolean(),
  radius: Type.Integer({ description: 'metres (default 100)' }),
  accuracy: Type.Integer({ description: 'metres (default 200)' }),
});
const UsageRequirementsResponse = Type.Object({
  time: Type.Optional(Type.Array(Type.Unsafe<TimeRequirement>((UsageRequirementsRule.properties.time as { items: object }).items))),
  location: Type.Optional(LocationRequirementResponse),
  locationRequired: Type.Optional(Type.Boolean({ description: "shown to USERs instead of `location`: a location rule applies (its centre is shown to ADMINs only)" })),
});
export type UsageRequirementsResponse = Static<typeof UsageRequirementsResponse>;
const UnlockBetweenWindowSchema = Type.Unsafe<UnlockBetweenWindow>(UnlockBetweenWindowRule);
const Seconds = Type.Number({ description: 'Unix seconds' });
export const NullableSeconds = Type.Union([Seconds, Type.Null()]);
export const Role = Type.Union([Type.Literal('ADMIN'), Type.Literal('USER')]);
const UnlockBetweenOrNull = Type.Union([UnlockBetweenWindowSchema, Type.Null()]);

/**
 * `settings.capabilities` as the official SDK reads them (Map<CapabilityType, CapabilityStatus>):
 * what the service does for every lock it serves (src/locks/capabilities.ts).
 */
const Supported = Type.Literal('SUPPORTED');
export const SettingsCapabilities = Type.Object(
  {
    CONFIGURABLE_UNLOCK_DURATION: Supported,
    OPEN_HOURS: Supported,
    BATCH_SHARING_25: Supported,
  },
  { description: "what the lock does, in the official SDK's terms: MUTATE_SETTING unlockDuration, MUTATE_SETTING unlockBetween, BATCH_ADD_USER of up to 25 users" },
);

/** The SDK's `settings.directAccessEndpoints` (LocalUnlockClient): where members may send a signed unlock on the LAN. */
const DirectAccessEndpoints = Type.Array(Type.String(), {
  description: "where the lock takes a signed unlock on its LAN (the official SDK sends the unlock there at the same time as to the service): the addresses the lock announces, while its owner allows it (settings.directAccess); else []",
});
const DirectAccess = Type.Boolean({ description: "whether the lock's owner lets members see and use its LAN addresses (directAccessEndpoints)" });

export const LockSettingsResponse = Type.Object({
  txBeaconRssi: Type.Integer({ description: 'deprecated' }),
  rxBeaconRssi: Type.Integer({ description: 'deprecated' }),
  unlockTime: Type.Integer({ description: 'seconds' }),
  proximityUnlock: Type.Boolean({ description: 'deprecated' }),
  permittedAddresses: Type.Array(Type.String()),
  defaultName: Type.String(),
  usageRequirements: UsageRequirementsResponse,
  delay: Type.Integer({ description: 'milliseconds; deprecated' }),
  unlockBetweenWindow: UnlockBetweenOrNull,
  tiles: Type.Array(Type.String(), { description: 'ids of the tiles that open this lock' }),
  hidden: Type.Boolean({ description: "the caller's own \"hide this lock\" flag" }),
  capabilities: SettingsCapabilities,
  directAccess: DirectAccess,
  directAccessEndpoints: DirectAccessEndpoints,
});

export const LockStateResponse = Type.Object({
  locked: Type.Optional(Type.Boolean({ description: 'absent while unknown' })),
  connected: Type.Boolean(),
  duration: Type.Integer({ description: 'seconds the lock stays unlocked after an unlock' }),
  doorOpen: Type.Optional(Type.Boolean({ description: 'the door sensor reads open; absent for a lock without one, or before it reports' })),
  battery: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, description: 'per cent; absent for a mains-powered lock, or before it reports' })),
  jammed: Type.Optional(Type.Boolean({ description: 'the bolt is jammed; absent before the lock reports it' })),
  tamper: Type.Optional(Type.Boolean({ description: 'tampering detected; absent before the lock reports it' })),
  lockedDown: Type.Optional(Type.Boolean({ description: 'the lock says it enforces a lockdown (device protocol 1.4; GET /lockdowns has its details, for administrators); absent before it says' })),
});

export const LockDeviceResponse = Type.Object({
  kind: Type.String({ description: 'the hardware family the lock says it is, e.g. simulator, zwave, matter' }),
  capabilities: Type.Array(Type.Union([Type.Literal('keypad'), Type.Literal('doorSensor'), Type.Literal('battery'), Type.Literal('jamDetection')])),
}, { description: 'what the lock says it is (device protocol 1.2); absent until it says' });

export const LockResponse = Type.Object({
  id: Type.String(),
  name: Type.String({ description: "the caller's alias, else the lock's default name" }),
  lastOperation: Seconds,
  colour: Colour,
  role: Role,
  settings: LockSettingsResponse,
  state: LockStateResponse,
  device: Type.Optional(LockDeviceResponse),
  favourite: Type.Boolean(),
  unlockTime: Type.Integer(),
  unlockForever: Type.Boolean(),
  start: NullableSeconds,
  end: NullableSeconds,
  schedule: Type.Optional(scheduleSchema("the caller's own weekly hours on this lock (their share's schedule); absent: none")),
});
export type LockResponse = Static<typeof LockResponse>;

export const SiteLockResponse = Type.Object({
  id: Type.String(),
  name: Type.String(),
  colour: Colour,
  start: NullableSeconds,
  end: NullableSeconds,
  role: Role,
  settings: Type.Object({
    unlockTime: Type.Integer(),
    permittedAddresses: Type.Array(Type.String()),
    defaultName: Type.String(),
    usageRequirements: UsageRequirementsResponse,
    unlockBetweenWindow: UnlockBetweenOrNull,
    tiles: Type.Array(Type.String()),
    hidden: Type.Boolean({ description: "the caller's own \"hide this lock\" flag" }),
    capabilities: SettingsCapabilities,
    directAccessEndpoints: DirectAccessEndpoints,
  }),
  state: Type.Object({ connected: Type.Boolean(), locked: Type.Optional(Type.Boolean()) }),
  favourite: Type.Boolean(),
});
export type SiteLockResponse = Static<typeof SiteLockResponse>;

export const ShareableLockResponse = Type.Object({ id: Type.String(), name: Type.String() });

/** docs/decisions.md "SDK shapes": true for a user of a third-party application (not registered directly). */
export const Foreign = Type.Boolean({ description: 'true when the user belongs to a third-party application rather than registering directly' });
export const ClaimBody = Type.Object({
  key: Type.String({ minLength: 1, maxLength: 256, description: "the lock's registration key" }),
  name: PlainText({ minLength: 1, maxLength: 255, description: 'default name of the lock' }),
});

const addressList = (description: string) => Type.Array(Type.String({ maxLength: 64 }), { maxItems: 256, description });
const Rssi = Type.Integer({ minimum: -200, maximum: 200 });

/** Parts of the usage requirements a PUT names; checked in update.ts against src/access's schema. */
export type UsageRequirementsUpdate = Record<string, unknown>;

export const LockSettingsUpdate = Type.Object({
  defaultName: Type.Optional(Name),
  permittedAddress: Type.Optional(addressList('complete list of permitted IPv4/IPv6 addresses or CIDR ranges (spec name)')),
  permittedAddresses: Type.Optional(addressList('same as permittedAddress')),
  usageRequirements: Type.Optional(
    Type.Union([UsageRequirementsUpdateSchema, Type.Null()], {
      description:
        'usage requirements (time, location); each part named replaces that part only, `time: []` or `location: null` removes it; null removes both. A `type` member (the SDK\'s class name) is ignored',
    }),
  ),
  hidden: Type.Optional(Type.Boolean({ description: "the caller's own \"hide this lock\" flag (any member)" })),
  txBeaconRssi: Type.Optional(Rssi),
  rxBeaconRssi: Type.Optional(Rssi),
  proximityUnlock: Type.Optional(Type.Boolean()),
  delay: Type.Optional(Type.Integer({ minimum: 0, maximum: 600_000 })),
  directAccess: Type.Optional(Type.Boolean({ description: "the lock's owner only: let members see and use the LAN addresses the lock announces (settings.directAccessEndpoints)" })),
  directAccessEndpoints: Type.Optional(Type.Unknown({ description: 'not written by clients: the lock announces its LAN addresses; its owner allows them with `directAccess` (a 400 says so)' })),
});
export type LockSettingsUpdate = Static<typeof LockSettingsUpdate>;

export const LockUpdate = Type.Object({
  name: Type.Optional(Type.Union([Name, Type.Null()], { description: "the caller's alias; null removes it" })),
  favourite: Type.Optional(Type.Boolean()),
  colour: Type.Optional(Type.Union([Colour, Type.Null()])),
  settings: Type.Optional(Type.Union([LockSettingsUpdate, Type.Null()], { description: 'null changes nothing' })),
});
export type LockUpdate = Static<typeof LockUpdate>;
