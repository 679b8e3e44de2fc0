import { startupStep } from './config/startup-step.js';
import type { AppContext } from './context.js';
import { startLockLinkSubscribers } from './lock-link/subscribers.js';

/** What `startSubscribers` started; `stop` ends it before the context closes. */
export interface Subscribers {
  stop(): Promise<void>;
  /** Resolves once the lock reports received so far are recorded (what "quiet" means for a test). */
  lockReportsRecorded(): Promise<void>;
}

/**
 * Starts every feature's background subscribers on the finished context, beside the routes:
 * today the lock link's (lock reports → database and audit; lock configs → broker).
 */
export async function startSubscribers(ctx: AppContext): Promise<Subscribers> {
  const setting = ctx.config.mqtt.kind === 'external' ? 'MQTT_URL' : 'MQTT_PORT / HOST';
  const lockLink = await startupStep(setting, 'cannot start the lock link', () => startLockLinkSubscribers(ctx));
  let stopping: Promise<void> | undefined;
  return { stop: () => (stopping ??= lockLink.stop()), lockReportsRecorded: () => lockLink.recorded() };
}
