import { allLocksRoutedReplyTopic, allLocksTopic, type TopicKind } from '../device-protocol/topics.js';
import type { Delivery, LinkTransport } from './transport.js';

/**
 * Several instances on one external broker (issue 33 point 2): each lock report reaches one
 * instance of the cluster, through MQTT 5 shared subscriptions (`$share/{group}/…`, round robin
 * among the instances), so its database transaction happens once. Three things still reach every
 * instance, each on a subscription of its own, told apart by MQTT 5 subscription identifiers:
 *
 * - `online` (WATCH): who is online, which every instance answers from memory (a command to an
 *   offline lock is a 503 at once); a presence message costs no database work there, and the
 *   retained ones replayed on subscribing are recorded (the database follows the broker after an
 *   outage of every instance, when a will reached nobody);
 * - replies of locks before protocol 1.6 on `reply` (WATCH): only the instance holding the
 *   command id acts on one, as before; a 1.6 lock replies on `reply/{replyTo}`, the instance
 *   named in the command alone;
 * - the retained `state` of every lock, once per (re)connection (SWEEP: subscribed, then
 *   unsubscribed as soon as the broker confirms; it sends the retained messages before that): a
 *   shared subscription brings no retained message (MQTT 5 §4.8.2; Mosquitto 2.0 sends them
 *   anyway, on every instance, so retained messages on the shared subscriptions are ignored).
 */

export interface SharedSubscriptionOptions {
  /** The share name every instance of the cluster uses. */
  group: string;
  /** This instance's reply route (protocol 1.6 `replyTo`), one topic level, unique in the cluster. */
  replyTo: string;
}

const WATCH = 1;
const SHARED = 2;
const SWEEP = 3;

/** What the link does with one message: keep presence in memory (`watch`), record it (`record`). */
export interface DeliveryRole {
  watch: boolean;
  record: boolean;
}

const BOTH: DeliveryRole = { watch: true, record: true };
const NEITHER: DeliveryRole = { watch: false, record: false };

const SHARED_KINDS: readonly TopicKind[] = ['online', 'state', 'event', 'operation'];

/** Subscribes `transport` to what the cluster shares and what each instance must hear itself; then sweeps the retained states. */
export async function subscribeShared(transport: LinkTransport, prefix: string, shared: SharedSubscriptionOptions): Promise<void> {
  await transport.subscribe(SHARED_KINDS.map((kind) => `$share/${shared.group}/${allLocksTopic(prefix, kind)}`), SHARED);
  await transport.subscribe([allLocksTopic(prefix, 'online'), allLocksTopic(prefix, 'reply'), allLocksRoutedReplyTopic(prefix, shared.replyTo)], WATCH);
  await sweepRetainedStates(transport, prefix);
}

/** Every lock's retained state, once: the broker sends them before it confirms the subscription, which then ends. */
export async function sweepRetainedStates(transport: LinkTransport, prefix: string): Promise<void> {
  const filter = allLocksTopic(prefix, 'state');
  await transport.subscribe([filter], SWEEP);
  await transport.unsubscribe([filter]);
}

/**
 * The role of one message. Without shared subscriptions (`shared` false) every instance records
 * everything it hears, as one instance alone does. A message without a known identifier (a broker
 * that does not send them) is treated so too: recorded twice is safe, the reports' writes being
 * conditional (src/lock-link/reports.ts); missed is not.
 */
export function roleOf(shared: boolean, delivery: Delivery | undefined): DeliveryRole {
  if (!shared || delivery === undefined) return BOTH;
  const { subscriptions, retained } = delivery;
  if (subscriptions.includes(SHARED)) return retained ? NEITHER : BOTH;
  if (subscriptions.includes(WATCH)) return { watch: true, record: retained };
  if (subscriptions.includes(SWEEP)) return retained ? BOTH : NEITHER;
  return BOTH;
}
