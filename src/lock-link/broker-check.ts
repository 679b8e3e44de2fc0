import { randomBytes, randomUUID } from 'node:crypto';
import type { IClientOptions } from 'mqtt';
import type { Logger } from 'pino';
import { connectMqtt } from '../mqtt/connection.js';

/**
 * Start-up check of an external broker (issue 16): it must refuse an anonymous client and a lock
 * with a wrong password. A broker that takes either lets anyone pose as a lock (and receive its
 * users and keys) or read every command. Mosquitto's common default allows anonymous clients.
 */

export interface BrokerExposure {
  anonymous: boolean;
  wrongPassword: boolean;
}

/** Whether a CONNECT with `credentials` is accepted; false when refused or unreachable. */
async function accepts(url: string, ca: string | Buffer | undefined, credentials: Pick<IClientOptions, 'username' | 'password'>): Promise<boolean> {
  try {
    const client = await connectMqtt(url, {
      clientId: randomUUID(),
      clean: true,
      reconnectPeriod: 0,
      connectTimeout: 5_000,
      ...credentials,
      ...(ca === undefined ? {} : { ca }),
    });
    await client.endAsync(true);
    return true;
  } catch {
    return false;
  }
}

/** `url` without the user name and password it may carry (the service's own). */
function anonymised(url: string): string {
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  return parsed.toString();
}

/** Tries an anonymous client and a random lock id with a random password. */
export async function probeBroker(url: string, ca?: string | Buffer): Promise<BrokerExposure> {
  const target = anonymised(url);
  const [anonymous, wrongPassword] = await Promise.all([
    accepts(target, ca, {}),
    accepts(target, ca, { username: randomUUID(), password: randomBytes(24).toString('base64url') }),
  ]);
  return { anonymous, wrongPassword };
}

/** What to fix, per exposure, named by setting. */
export function exposureAdvice(exposure: BrokerExposure): string[] {
  const advice: string[] = [];
  if (exposure.anonymous) {
    advice.push('the MQTT broker accepts anonymous clients: set `allow_anonymous false` (Mosquitto) or disable anonymous access / enable an authenticator (EMQX `authentication`, `allow_anonymous = false`)');
  }
  if (exposure.wrongPassword) {
    advice.push('the MQTT broker accepts a lock id with a wrong password: give it a `password_file` (Mosquitto), or Latchkey\'s auth hook or client certificates (docs/deployment.md)');
  }
  return advice;
}

/**
 * Refuses to start on an open broker unless `allowInsecure` (MQTT_ALLOW_INSECURE_BROKER=true),
 * logging an error naming the setting to fix either way.
 */
export async function checkBrokerIsClosed(url: string, options: { ca?: string | Buffer; allowInsecure: boolean; logger: Logger }): Promise<void> {
  const advice = exposureAdvice(await probeBroker(url, options.ca));
  if (advice.length === 0) return;
  for (const line of advice) options.logger.error({ broker: anonymised(url) }, line);
  if (options.allowInsecure) {
    options.logger.error('starting anyway: MQTT_ALLOW_INSECURE_BROKER=true');
    return;
  }
  throw new Error(`${advice.join('; ')}. Fix the broker, or set MQTT_ALLOW_INSECURE_BROKER=true to start anyway`);
}
