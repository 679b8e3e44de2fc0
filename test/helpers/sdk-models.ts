import assert from 'node:assert/strict';
import { Type, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { SDK_MODEL_PACKAGE } from './sdk-wire.js';

/**
 * The response models of the official SDK (doordeck/doordeck-headless-sdk, `model/responses/`),
 * written out as JSON schemas so that a test can check a response the way the SDK's decoder would
 * (kotlinx.serialization with `ignoreUnknownKeys = true, isLenient = true`):
 * - unknown members are ignored (objects stay open);
 * - a property without a Kotlin default must be present, and a non-nullable one must not be null;
 * - `Int`/`Long` must be whole numbers, `Double` any number, enums one of their names;
 * - `isLenient` lets a `String` property read an unquoted token, so a number is accepted where
 *   the model says `String` (our timestamps are Unix seconds): `LenientString` says where.
 * Each schema names the Kotlin class it mirrors.
 */

const Str = Type.String();
const Int = Type.Integer();
const Dbl = Type.Number();
const Bool = Type.Boolean();
/** `String` read leniently: a JSON string or an unquoted number token. */
const LenientString = Type.Union([Type.String(), Type.Number()]);
/** `T? = null`: may be absent or null. */
const OptNull = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));
/** A property with a non-null default: may be absent, never null. */
const Opt = <T extends TSchema>(schema: T) => Type.Optional(schema);
const Enum = (...names: string[]) => Type.Union(names.map((n) => Type.Literal(n)));

const UserRole = Enum('ADMIN', 'USER');
const DayOfWeek = Enum('MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY');
const AuditEvent = Enum(
  'DOOR_OPEN', 'DOOR_CLOSE', 'DOOR_UNLOCK', 'DOOR_LOCK', 'OWNER_ASSIGNED', 'DEVICE_CONNECTED', 'DEVICE_DISCONNECTED', 'LOCK_SHARED', 'LOCK_REVOKED',
  'USER_PROMOTED', 'USER_DEMOTED', 'SETTING_CHANGED', 'TILE_ASSOCIATED', 'TILE_DISASSOCIATED', 'DEVICE_DECOMMISSIONED',
);

/** CapabilityType and CapabilityStatus (model/common/Capability.kt): a key or value outside them fails the decoding of the lock. */
const CapabilityStatus = Enum('SUPPORTED', 'UNSUPPORTED');
/** Map<CapabilityType, CapabilityStatus>: any of the three keys, no other. */
const Capabilities = Type.Record(Type.String({ pattern: '^(CONFIGURABLE_UNLOCK_DURATION|OPEN_HOURS|BATCH_SHARING_25)$' }), CapabilityStatus, { additionalProperties: false });
/** Every capability the SDK knows, SUPPORTED: what a Latchkey lock advertises (src/locks/capabilities.ts). */
export const EVERY_CAPABILITY = { CONFIGURABLE_UNLOCK_DURATION: 'SUPPORTED', OPEN_HOURS: 'SUPPORTED', BATCH_SHARING_25: 'SUPPORTED' } as const;

/** BasicTimeRequirementResponse */
export const TimeRequirementModel = Type.Object({ start: Str, end: Str, timezone: Str, days: Type.Array(DayOfWeek) });
/** BasicLocationRequirementResponse */
export const LocationRequirementModel = Type.Object({ latitude: Dbl, longitude: Dbl, enabled: Bool, radius: Int, accuracy: Int });
/** BasicUsageRequirementsResponse */
export const UsageRequirementsModel = Type.Object({ time: Opt(Type.Array(TimeRequirementModel)), location: OptNull(LocationRequirementModel) });
/** BasicUnlockBetweenSettingResponse */
const UnlockBetweenModel = Type.Object({ start: Str, end: Str, timezone: Str, days: Type.Array(DayOfWeek), exceptions: Opt(Type.Array(Str)) });
/** BasicLockSettingsResponse */
export const LockSettingsModel = Type.Object({
  unlockTime: Dbl,
  permittedAddresses: Type.Array(Str),
  defaultName: Str,
  usageRequirements: OptNull(UsageRequirementsModel),
  unlockBetweenWindow: OptNull(UnlockBetweenModel),
  tiles: Type.Array(Str),
  hidden: Bool,
  directAccessEndpoints: Opt(Type.Array(Str)),
  capabilities: Opt(Capabilities),
});
/** BasicLockResponse (also BasicSiteLocksResponse, its alias) */
export const LockModel = Type.Object({
  id: Str,
  name: Str,
  start: OptNull(LenientString),
  end: OptNull(LenientString),
  role: UserRole,
  settings: LockSettingsModel,
  state: Type.Object({ connected: OptNull(Bool) }),
  favourite: Bool,
});

/** BasicUserLockResponse (GET /device/{id}/users) */
export const UserLockModel = Type.Object({
  userId: Str,
  email: Str,
  publicKey: Str,
  displayName: OptNull(Str),
  orphan: Bool,
  foreign: Bool,
  role: UserRole,
  start: OptNull(Dbl),
  end: OptNull(Dbl),
});
/** BasicLockUserResponse (GET /user/{id}) */
export const LockUserModel = Type.Object({
  userId: Str,
  email: Str,
  publicKey: Str,
  displayName: OptNull(Str),
  orphan: Bool,
  foreign: Bool,
  start: OptNull(Dbl),
  end: OptNull(Dbl),
  devices: Type.Array(Type.Object({ deviceId: Str, role: UserRole, start: OptNull(Dbl), end: OptNull(Dbl) })),
});

/** BasicAuditUserResponse */
const AuditUserModel = Type.Object({ userId: Str, email: OptNull(Str), displayName: OptNull(Str), ip: OptNull(Str) });
/** BasicAuditResponse (lock audit v2 and user audit) */
export const AuditModel = Type.Object({
  deviceId: Str,
  timestamp: LenientString,
  type: AuditEvent,
  issuer: AuditUserModel,
  subject: OptNull(AuditUserModel),
  rejectionReason: OptNull(Str),
  rejected: Bool,
  userAgent: OptNull(Type.Object({ type: Str, version: OptNull(Str) })),
});

/** BasicSiteResponse */
export const SiteModel = Type.Object({ id: Str, name: Str, colour: Str, longitude: Dbl, latitude: Dbl, radius: Int, created: LenientString, updated: LenientString });
/** BasicUserForSiteResponse */
export const SiteUserModel = Type.Object({ userId: Str, email: Str, displayName: OptNull(Str), orphan: Bool, foreign: Bool });
/** BasicTileLocksResponse */
export const TileLocksModel = Type.Object({ siteId: Str, tileId: Str, deviceIds: Type.Array(Str) });

const authKeyCommon = {
  use: Str,
  kid: Str,
  alg: OptNull(Str),
  key_ops: OptNull(Type.Array(Str)),
  x5u: OptNull(Str),
  x5t: OptNull(Str),
  'x5t#S256': OptNull(Str),
  x5c: OptNull(Type.Array(Str)),
  exp: OptNull(Int),
  nbf: OptNull(Int),
  iat: OptNull(Int),
};
/** BasicAuthKeyResponse, sealed by `kty`: BasicRsaKeyResponse, BasicEcKeyResponse, BasicEd25519KeyResponse */
export const AuthKeyModel = Type.Union([
  Type.Object({ kty: Type.Literal('RSA'), ...authKeyCommon, e: Str, n: Str }),
  Type.Object({ kty: Type.Literal('EC'), ...authKeyCommon, crv: Str, x: Str, y: Str }),
  Type.Object({ kty: Type.Literal('OKP'), ...authKeyCommon, crv: Str, x: Str }),
]);
/** BasicEmailPreferencesResponse */
export const EmailPreferencesModel = Type.Object({
  senderEmail: OptNull(Str),
  senderName: OptNull(Str),
  primaryColour: Str,
  secondaryColour: Str,
  onlySendEssentialEmails: OptNull(Bool),
  callToAction: OptNull(Type.Object({ actionTarget: Str, headline: Str, actionText: Str })),
});
/** BasicApplicationResponse */
export const ApplicationModel = Type.Object({
  applicationId: Str,
  name: Str,
  lastUpdated: OptNull(Dbl),
  owners: Opt(Type.Array(Str)),
  corsDomains: Opt(Type.Array(Str)),
  authDomains: Opt(Type.Array(Str)),
  logoUrl: OptNull(Str),
  privacyPolicy: OptNull(Str),
  mailingAddress: OptNull(Str),
  companyName: OptNull(Str),
  supportContact: OptNull(Str),
  appLink: OptNull(Str),
  slug: OptNull(Str),
  emailPreferences: EmailPreferencesModel,
  authKeys: Type.Record(Str, AuthKeyModel),
  oauth: OptNull(Type.Object({ authorizationEndpoint: Str, clientId: Str, grantType: Str })),
  isDoordeckApplication: OptNull(Bool),
});
/** BasicApplicationOwnerDetailsResponse */
export const ApplicationOwnerModel = Type.Object({ userId: Str, email: Str, displayName: OptNull(Str), orphan: Bool, foreign: Bool });
/** BasicApplicationUserResponse */
export const ApplicationUserModel = Type.Object({
  userId: Str,
  foreignKey: OptNull(Str),
  displayName: OptNull(Str),
  email: OptNull(Str),
  emailVerified: Bool,
  telephone: OptNull(Str),
  telephoneVerified: Bool,
  emailIndexed: Bool,
  telephoneIndexed: Bool,
  foreignKeyIndexed: Bool,
  lastUpdated: Str,
});
/** BasicUserDetailsResponse (GET /account) */
export const UserDetailsModel = Type.Object({ email: Str, displayName: OptNull(Str), emailVerified: Bool, publicKey: Str });

/** Fails with every mismatch (path, expected, actual) when `body` would not decode as `model`. */
export function assertMatchesModel(body: unknown, model: TSchema, what = 'response'): void {
  const problems = [...Value.Errors(model, body)].slice(0, 10).map((e) => `${e.path || '/'}: ${e.message} (got ${JSON.stringify(e.value)})`);
  assert.deepEqual(problems, [], `${what} does not match the SDK model:\n${problems.join('\n')}`);
}

/** The `type` member kotlinx.serialization writes for a request class of a sealed interface: its qualified name. */
export function sdkType(className: string): string {
  return `${SDK_MODEL_PACKAGE}.${className}`;
}
