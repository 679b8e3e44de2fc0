import { after, before } from 'node:test';
import type { ServiceOptions } from '../../src/server.js';
import { certify, type Signer } from '../execute/support.js';
import { createVerifiedUser } from './locks.js';
import { startMosquitto, type Mosquitto } from './mosquitto.js';
import { startInstanceBeside, startTestService, TEST_REDIS_URL, type TestService } from './service.js';

/**
 * The set-up of the tests of several instances: one database, one Redis, one Mosquitto with the
 * documented configuration (the service's login and each lock's), and instances of the service
 * started beside the test's own on that broker.
 */

export type ClusterInstance = Awaited<ReturnType<typeof startInstanceBeside>>;

/** The service's login on the broker (docs/deployment/mosquitto.acl's `latchkey-service`). */
export const SERVICE_USER = { username: 'latchkey-service', password: 'service-password-for-tests' };

/**
 * The suite's own service (Redis, as instances need) and an administrator who can sign
 * operations: started before the suite's tests, closed after them; read once they have started.
 */
export function useClusterTestService(): { readonly t: TestService; readonly admin: Signer } {
  let started: { t: TestService; admin: Signer } | undefined;
  before(async () => {
    const t = await startTestService({ CERT_CHECK: 'never', REDIS_URL: TEST_REDIS_URL });
    started = { t, admin: await certify(t, await createVerifiedUser(t)) };
  });
  after(async () => started?.t.close());
  const get = () => {
    if (started === undefined) throw new Error('the cluster test service is read before the suite started it');
    return started;
  };
  return { get t() { return get().t; }, get admin() { return get().admin; } };
}

export interface ClusterBroker {
  mosquitto: Mosquitto;
  /** MQTT_URL of the instances: the broker with the service's login. */
  serviceUrl: string;
  /** An instance of `t`'s service on this broker (shared subscriptions: the configuration's default). */
  startInstance(options?: Pick<ServiceOptions, 'holdLockReport'>): Promise<ClusterInstance>;
  close(): Promise<void>;
}

/** A private Mosquitto that lets in the service and each of `locks`. */
export async function startClusterBroker(t: TestService, locks: ReadonlyArray<{ id: string; secret: string }>): Promise<ClusterBroker> {
  const mosquitto = await startMosquitto([SERVICE_USER, ...locks.map((lock) => ({ username: lock.id, password: lock.secret }))], SERVICE_USER.username);
  const serviceUrl = mosquitto.url.replace('mqtt://', `mqtt://${SERVICE_USER.username}:${SERVICE_USER.password}@`);
  return {
    mosquitto,
    serviceUrl,
    startInstance: (options = {}) => startInstanceBeside(t, { mqtt: { kind: 'external', url: serviceUrl } }, options),
    close: () => mosquitto.close(),
  };
}

/** What one instance's link took to record, by kind (its `latchkey_lock_reports_total`). */
export async function reportsTakenBy(instance: ClusterInstance): Promise<Record<string, number>> {
  const { values } = await instance.service.ctx.metrics.lockReports.get();
  return Object.fromEntries(values.map(({ labels, value }) => [String(labels.kind), value]));
}

/** The same, summed over `instances`. */
export async function reportsTakenByAll(instances: readonly ClusterInstance[]): Promise<Record<string, number>> {
  const sum: Record<string, number> = {};
  for (const counts of await Promise.all(instances.map(reportsTakenBy))) for (const [kind, n] of Object.entries(counts)) sum[kind] = (sum[kind] ?? 0) + n;
  return sum;
}
