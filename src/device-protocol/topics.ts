/**
 * Topic names of the lock link (docs/device-protocol.md). Every topic is
 * `{prefix}/{lockId}/{kind}`; the prefix may itself contain slashes (`acme/locks`) and is checked
 * by the transport's rule (src/mqtt/topic-names.ts).
 */

/** What a lock publishes. */
/** What a lock publishes (`operation`: protocol 1.3, what the lock did on its own: on the LAN, at its keypad, by hand). */
export const LOCK_PUBLISHES = ['online', 'state', 'event', 'reply', 'operation'] as const;
/** What a lock subscribes to (the service publishes). */
export const LOCK_SUBSCRIBES = ['command', 'config'] as const;

export type LockPublishKind = (typeof LOCK_PUBLISHES)[number];
export type LockSubscribeKind = (typeof LOCK_SUBSCRIBES)[number];
export type TopicKind = LockPublishKind | LockSubscribeKind;

const KINDS: readonly string[] = [...LOCK_PUBLISHES, ...LOCK_SUBSCRIBES];

export const DEFAULT_TOPIC_PREFIX = 'locks';

/**
 * A lock id usable as one topic level and as an MQTT client id: no wildcard, separator, `$` or
 * control characters, at most 128 bytes. Checked before a device id ever reaches a topic, so
 * `a/b` or `+` can never widen what a lock may touch.
 */
export function isValidLockId(id: string): boolean {
  return id.length > 0 && Buffer.byteLength(id) <= 128 && /^[A-Za-z0-9._:-]+$/.test(id);
}

export function lockTopic(prefix: string, lockId: string, kind: TopicKind): string {
  return `${prefix}/${lockId}/${kind}`;
}

/** The subscription that matches `kind` for every lock. */
export function allLocksTopic(prefix: string, kind: TopicKind): string {
  return `${prefix}/+/${kind}`;
}

/**
 * Protocol 1.6: a command's `replyTo`, the one topic level that names the service instance
 * waiting for the reply; the lock replies on `{prefix}/{lockId}/reply/{replyTo}`.
 */
export const REPLY_ROUTE_PATTERN = '^[A-Za-z0-9._-]{1,64}$';
const replyRoute = new RegExp(REPLY_ROUTE_PATTERN);

export function isValidReplyRoute(route: string): boolean {
  return replyRoute.test(route);
}

/** Where a lock replies to a command naming `replyTo` (protocol 1.6). */
export function routedReplyTopic(prefix: string, lockId: string, replyTo: string): string {
  return `${lockTopic(prefix, lockId, 'reply')}/${replyTo}`;
}

/** The subscription of one instance's routed replies, for every lock (protocol 1.6). */
export function allLocksRoutedReplyTopic(prefix: string, replyTo: string): string {
  return `${allLocksTopic(prefix, 'reply')}/${replyTo}`;
}

/**
 * Splits `{prefix}/{lockId}/{kind}`, and a routed reply `{prefix}/{lockId}/reply/{route}` (protocol
 * 1.6, kind `reply`); null for anything else (wrong prefix, extra levels, unknown kind).
 */
export function parseLockTopic(prefix: string, topic: string): { lockId: string; kind: TopicKind; route?: string } | null {
  if (!topic.startsWith(`${prefix}/`)) return null;
  const rest = topic.slice(prefix.length + 1).split('/');
  const [lockId, kind, route] = rest as [string, string, string | undefined];
  if (rest.length === 3 && (kind !== 'reply' || !isValidReplyRoute(route!))) return null;
  if (rest.length !== 2 && rest.length !== 3) return null;
  if (!isValidLockId(lockId) || !KINDS.includes(kind)) return null;
  return route === undefined ? { lockId, kind: kind as TopicKind } : { lockId, kind: 'reply', route };
}
