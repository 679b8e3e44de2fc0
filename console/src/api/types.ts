import type { paths } from './schema';

/**
 * The console's names for the service's request and response bodies, all taken from the types
 * generated from its OpenAPI document (schema.d.ts): none is written out by hand.
 */

export type ApiPath = keyof paths;
type Method = 'get' | 'post' | 'put' | 'delete';
type Json<T> = T extends { content: { 'application/json': infer B } } ? B : undefined;

/** The JSON body a successful `method` on `path` answers (undefined for no content). */
export type Reply<P extends ApiPath, M extends Method> = paths[P][M] extends { responses: infer R }
  ? R extends { 200: infer Ok } ? Json<Ok> : R extends { 201: infer Created } ? Json<Created> : undefined
  : never;

/** The JSON body `method` on `path` takes. */
export type Body<P extends ApiPath, M extends Method> = paths[P][M] extends { requestBody?: infer B } ? Json<NonNullable<B>> : never;

export type Session = Reply<'/auth/token', 'post'>;
export type Account = Reply<'/account', 'get'>;
export type CertificateChain = Reply<'/auth/certificate', 'post'>;
export type Invitee = Reply<'/share/invite/{email}', 'get'>;

export type Lock = Reply<'/device/{lockId}', 'get'>;
export type Role = Lock['role'];
export type LockState = Lock['state'];
export type UnlockBetween = NonNullable<Lock['settings']['unlockBetweenWindow']>;
export type DayName = UnlockBetween['days'][number];
/** One weekly window of a share's own hours (ADD_USER `schedule`). */
export type Hours = NonNullable<Lock['schedule']>[number];
export type LockChanges = Body<'/device/{lockId}', 'put'>;
export type Site = Reply<'/site', 'get'>[number];
export type Member = Reply<'/device/{lockId}/users', 'get'>[number];

export type Application = Reply<'/platform/application/{applicationId}', 'get'>;
export type ApplicationChanges = Body<'/platform/application/{applicationId}', 'post'>;
export type NewApplication = Body<'/platform/application', 'post'>;

export type LockLogEntry = Reply<'/device/{lockId}/log', 'get'>[number];
export type UserLogEntry = Reply<'/user/{userId}/log', 'get'>[number];
/**
 * One audit entry as GET /device/events sends it: a lock's log entry (v2) with `rejected`, the
 * lock and its state (src/events/stream.ts). The stream's document types it as text, hence this
 * composition of the documented parts.
 */
export type LiveEntry = LockLogEntry & { deviceId: string; rejected: boolean; state?: Partial<LockState> };

export type CheckpointAnswer = Reply<'/audit/checkpoint', 'get'>;
export type CheckpointKeyAnswer = Reply<'/audit/checkpoint/key', 'get'>;
export type ProofPage = Reply<'/device/{lockId}/log/proof', 'get'>;
export type ProvenEntry = ProofPage['entries'][number];

export type Alarms = Reply<'/alarms', 'get'>;
export type Alarm = Alarms['open'][number];
export type AlarmKind = Alarm['kind'];
export type AlarmSettings = Reply<'/device/{lockId}/alarm-settings', 'get'>;
export type AlarmSettingsChange = Body<'/device/{lockId}/alarm-settings', 'put'>;
export type Lockdown = Reply<'/lockdowns', 'get'>['lockdowns'][number];

export type Webhook = Reply<'/webhook/{webhookId}', 'get'>;
export type NewWebhook = Body<'/webhook', 'post'>;
export type WebhookChanges = Body<'/webhook/{webhookId}', 'put'>;
export type WebhookDelivery = Reply<'/webhook/{webhookId}/deliveries', 'get'>['deliveries'][number];

/** A keypad code as its administrators see it (never its digits), with its state on each of their locks. */
export type KeypadCode = Reply<'/lock-codes/{codeId}', 'get'>;
export type CodeOnLock = KeypadCode['locks'][number];
export type NewCode = Body<'/lock-codes', 'post'>;
export type CreatedCode = Reply<'/lock-codes', 'post'>;
export type SendCode = Body<'/lock-codes/{codeId}/send', 'post'>;
