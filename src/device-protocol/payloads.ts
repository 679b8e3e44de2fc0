import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { ScheduleSchema, UnlockBetweenWindowSchema } from '../access/schemas.js';
import { REPLY_ROUTE_PATTERN } from './topics.js';

/**
 * JSON payloads of the lock link (docs/device-protocol.md). Whatever arrives from the broker is
 * untrusted: it is size-checked, parsed and checked against these schemas before anything reads
 * it. Unknown fields are allowed (and ignored) so either side can add fields without breaking the
 * other.
 */

/** Larger payloads are dropped unparsed; a config of a few thousand users fits. */
export const MAX_PAYLOAD_BYTES = 1024 * 1024;
export const MAX_TOKEN_BYTES = 16 * 1024;
export const MAX_ERROR_LENGTH = 200;
/** Codes one config carries at most (protocol 1.5). */
export const MAX_CONFIG_CODES = 250;

const Seconds = Type.Number({ minimum: 0 });
const CommandId = Type.String({ minLength: 1, maxLength: 64 });

/** The config version a lock holds (protocol 1.1; null or absent: none, or firmware that does not say). */
const ConfigVersion = Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]));

/** What a lock's hardware can do (protocol 1.2); other names a lock sends are ignored. */
export const LOCK_CAPABILITIES = ['keypad', 'doorSensor', 'battery', 'jamDetection'] as const;
export type LockCapability = (typeof LOCK_CAPABILITIES)[number];

/** What the lock is (protocol 1.2): `kind` names the hardware family, e.g. `simulator`, `zwave`, `matter`. */
export const DeviceSchema = Type.Object({
  kind: Type.String({ minLength: 1, maxLength: 32, pattern: '^[a-z0-9][a-z0-9._-]*$' }),
  capabilities: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 16 })),
  /** Protocol 1.5: how many digits a code on its keypad may have (a Matter lock's Min/MaxPINCodeLength); absent: it does not say. */
  codeDigits: Type.Optional(Type.Object({ min: Type.Integer({ minimum: 1, maximum: 32 }), max: Type.Integer({ minimum: 1, maximum: 32 }) })),
});

/** Protocol 1.3: at most this many LAN addresses per lock, each an http(s) URL of at most 256 characters. */
export const MAX_DIRECT_ACCESS_ENDPOINTS = 4;
const DirectAccessEndpoint = Type.String({ maxLength: 256, pattern: '^https?://[^\\s]+$' });

export const OnlineSchema = Type.Object({
  online: Type.Boolean(),
  configVersion: ConfigVersion,
  device: Type.Optional(DeviceSchema),
  /** Protocol 1.3: where the lock takes a signed unlock on the LAN (the SDK's directAccessEndpoints); absent or []: nowhere. */
  directAccessEndpoints: Type.Optional(Type.Array(DirectAccessEndpoint, { maxItems: MAX_DIRECT_ACCESS_ENDPOINTS })),
});

/** Where a local operation came from (protocol 1.3): a signed request on the LAN, the lock's keypad, a hand on the thumb turn or key. */
export const OPERATION_SOURCES = ['lan', 'keypad', 'manual'] as const;
export type OperationSource = (typeof OPERATION_SOURCES)[number];

/**
 * Protocol 1.3, `operation` (lock → service): a bolt move the lock made without a command of the
 * service, sent when it happens or, while the service cannot be reached, kept and sent once it can.
 * `ts` is when it happened; `id` makes a report sent twice count once. A `lan` report carries the
 * signed request it acted on (`token`): the service audits it as that user's only when the token
 * verifies, and remembers its `jti` so the service path refuses it afterwards.
 */
export const OperationReportSchema = Type.Object({
  id: CommandId,
  source: Type.Union(OPERATION_SOURCES.map((source) => Type.Literal(source))),
  locked: Type.Boolean(),
  ts: Seconds,
  /** keypad: the user-code slot used, when the lock tells it. */
  slot: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
  /** keypad (protocol 1.5): the id of the code used (or refused), from the config's `codes`; never its digits. */
  code: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  /** keypad (protocol 1.5): the entry was refused (no bolt moved; `locked` is what it asked for), with the reason. */
  refused: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  /** keypad (protocol 1.5): this refusal locked the keypad out until then (Unix seconds). */
  lockoutUntil: Type.Optional(Seconds),
  /** lan: the compact token the lock acted on. */
  token: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_TOKEN_BYTES })),
});

export const StateSchema = Type.Object({
  locked: Type.Boolean(),
  doorOpen: Type.Optional(Type.Boolean()),
  ts: Seconds,
  configVersion: ConfigVersion,
  // Protocol 1.2, each omitted by a lock that cannot tell.
  battery: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, description: 'per cent' })),
  jammed: Type.Optional(Type.Boolean()),
  tamper: Type.Optional(Type.Boolean()),
  /** Protocol 1.5: the codes of the config it holds that the lock refused, each with its reason; absent or []: none. */
  codeErrors: Type.Optional(Type.Array(Type.Object({ code: Type.String({ maxLength: 64 }), error: Type.String({ maxLength: 1024 }) }), { maxItems: MAX_CONFIG_CODES })),
  /** Protocol 1.4: the id of the lockdown the lock enforces, or null; absent: the lock does not say. */
  lockdown: Type.Optional(Type.Union([Type.String({ pattern: '^[0-9a-fA-F-]{36}$' }), Type.Null()])),
  /**
   * Protocol 1.7: the id of the operation report (1.3) whose bolt move this state is the first to
   * show; that report audits the move, so the state does not audit it again as a move by nobody,
   * whichever of the two is recorded first (several instances: issue 33 point 2).
   */
  operation: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
});

export const EventSchema = Type.Object({
  type: Type.Union([Type.Literal('DOOR_OPEN'), Type.Literal('DOOR_CLOSE')]),
  ts: Seconds,
  /** Protocol 1.4, on DOOR_OPEN: whether the door opened with the bolt thrown (no unlock); absent: the lock does not say. */
  forced: Type.Optional(Type.Boolean()),
});

// `state` is checked apart (replyState): a malformed one must not cost the reply its outcome.
export const ReplySchema = Type.Union([
  Type.Object({ id: CommandId, ok: Type.Literal(true), state: Type.Optional(Type.Unknown()) }),
  Type.Object({ id: CommandId, ok: Type.Literal(false), error: Type.String({ maxLength: 1024 }) }),
]);

export const CommandSchema = Type.Object({
  id: CommandId,
  token: Type.String({ minLength: 1, maxLength: MAX_TOKEN_BYTES }),
  operation: Type.Object({ type: Type.String() }),
  /** Protocol 1.2: Unix seconds (the service's clock) after which the lock must not act on the command. */
  deadline: Type.Optional(Seconds),
  /** Protocol 1.6: the instance waiting for the reply; the lock replies on `{prefix}/{id}/reply/{replyTo}` (src/device-protocol/topics.ts). */
  replyTo: Type.Optional(Type.String({ pattern: REPLY_ROUTE_PATTERN })),
});

export const ConfigUserSchema = Type.Object({
  userId: Type.String({ minLength: 1, maxLength: 1024 }),
  /** Base64 DER SPKI RSA key for RS256 tokens; null for a user who signs only with certificates. */
  publicKey: Type.Union([Type.String({ maxLength: 4096 }), Type.Null()]),
  role: Type.Union([Type.Literal('ADMIN'), Type.Literal('USER')]),
  start: Type.Union([Seconds, Type.Null()]),
  end: Type.Union([Seconds, Type.Null()]),
  /** The user's own weekly hours (shared decisions §8); absent: none. A lock operates for them only inside one. */
  schedule: Type.Optional(ScheduleSchema),
});

/**
 * Protocol 1.5: a keypad code. `token` is the ADD_CODE an administrator signed (holder, window,
 * schedule, maximum uses are read from it); `sealed` the digits, sealed for this lock
 * (src/crypto/keypad-seal.ts); `usedElsewhere` the uses the service counted on the code's other locks.
 */
export const ConfigCodeSchema = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  token: Type.String({ minLength: 1, maxLength: MAX_TOKEN_BYTES }),
  sealed: Type.String({ minLength: 1, maxLength: 512 }),
  usedElsewhere: Type.Optional(Type.Integer({ minimum: 0 })),
});

/** Protocol 1.4: a lockdown as its administrators signed it (docs/device-protocol.md, Config). */
export const ConfigLockdownSchema = Type.Object({
  /** The LOCKDOWN operation token (compact JWS). */
  token: Type.String({ minLength: 1, maxLength: MAX_TOKEN_BYTES }),
  /** LIFT_LOCKDOWN tokens signed so far. */
  lifts: Type.Array(Type.String({ minLength: 1, maxLength: MAX_TOKEN_BYTES }), { maxItems: 64 }),
});

export const ConfigSchema = Type.Object({
  version: Type.Integer({ minimum: 0 }),
  unlockDuration: Type.Integer({ minimum: 0 }),
  unlockBetween: Type.Union([UnlockBetweenWindowSchema, Type.Null()]),
  users: Type.Array(ConfigUserSchema),
  codes: Type.Optional(Type.Array(ConfigCodeSchema, { maxItems: MAX_CONFIG_CODES })),
  lockdown: Type.Optional(Type.Union([ConfigLockdownSchema, Type.Null()])),
});

export type LockState = Static<typeof StateSchema>;
export type OnlinePayload = Static<typeof OnlineSchema>;
export type LockDevice = Static<typeof DeviceSchema>;
export type LockEvent = Static<typeof EventSchema>;
export type OperationReport = Static<typeof OperationReportSchema>;
export type ReplyPayload = Static<typeof ReplySchema>;
export type CommandPayload = Static<typeof CommandSchema>;
export type ConfigUser = Static<typeof ConfigUserSchema>;
export type ConfigCode = Static<typeof ConfigCodeSchema>;
export type LockConfig = Static<typeof ConfigSchema>;

export type Decoded<T> = { ok: true; value: T } | { ok: false; reason: string };

/** A decoder of one payload kind: bytes in, a checked value or a reason out; never throws. */
export type Decoder<T> = (payload: Buffer) => Decoded<T>;

function decoder<S extends TSchema>(schema: S): Decoder<Static<S>> {
  const check: TypeCheck<S> = TypeCompiler.Compile(schema);
  return (payload) => {
    if (payload.length > MAX_PAYLOAD_BYTES) return { ok: false, reason: 'payload too large' };
    let value: unknown;
    try {
      value = JSON.parse(payload.toString('utf8'));
    } catch {
      return { ok: false, reason: 'payload is not JSON' };
    }
    if (check.Check(value)) return { ok: true, value };
    const first = check.Errors(value).First();
    return { ok: false, reason: first === undefined ? 'payload has a bad shape' : `${first.path || '/'}: ${first.message}` };
  };
}

export const decodeOnline = decoder(OnlineSchema);
export const decodeState = decoder(StateSchema);
export const decodeEvent = decoder(EventSchema);
export const decodeReply = decoder(ReplySchema);
export const decodeCommand = decoder(CommandSchema);
export const decodeConfig = decoder(ConfigSchema);
export const decodeOperationReport = decoder(OperationReportSchema);

const checkState = TypeCompiler.Compile(StateSchema);

/** The `state` a reply carries: absent, valid, or malformed (then ignored, with the reason). */
export function replyState(state: unknown): { state?: LockState; invalid?: string } {
  if (state === undefined) return {};
  if (checkState.Check(state)) return { state };
  const first = checkState.Errors(state).First();
  return { invalid: first === undefined ? 'bad shape' : `${first.path || '/'}: ${first.message}` };
}

/** A reason from a device made safe to show: printable, bounded. */
export function safeReason(reason: string): string {
  const printable = reason.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').trim();
  return printable.length > MAX_ERROR_LENGTH ? `${printable.slice(0, MAX_ERROR_LENGTH)}…` : printable || 'unspecified';
}

/** The capabilities of `device` this protocol knows, each once, in the protocol's order. */
export function knownCapabilities(device: LockDevice): LockCapability[] {
  const named = new Set(device.capabilities ?? []);
  return LOCK_CAPABILITIES.filter((capability) => named.has(capability));
}
