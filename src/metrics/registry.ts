import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** What the metrics read at scrape time (connection states, counts held elsewhere). */
export interface MetricSources {
  locksOnline(): number;
  brokerReconnects(): number;
  busReconnects(): number;
  /** Seconds the oldest audit entry not covered by a signed checkpoint has waited (0: all covered); src/audit/checkpoint-signer.ts. */
  auditCheckpointLag(): Promise<number>;
}

/**
 * The service's Prometheus metrics (issue 17 §4), in a registry of their own (no global state):
 * built by the composition root, fed by the HTTP hook and the features, read by /metrics.
 */
export interface Metrics {
  registry: Registry;
  /** Read from `httpDuration`'s counts when scraped: record a request there only. */
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  /** One unlock's phases: `verification` (signature and claims), `database` (the command's writes), `lock` (the round trip to the lock). */
  unlockPhase: Histogram<'phase'>;
  commandsTimedOut: Counter;
  /** Lock reports this instance took to record (presence, state, event, operation): with shared subscriptions, each on one instance of the cluster. */
  lockReports: Counter<'kind'>;
  rateLimitRefusals: Counter<'route'>;
  sseStreamsOpen: Gauge;
  /** Sources are attached once the link exists (the metrics are made before it). */
  attach(sources: MetricSources): void;
}

const HTTP_DURATION = 'latchkey_http_request_duration_seconds';
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetrics(): Metrics {
  const registry = new Registry();
  let sources: MetricSources | undefined;
  const registers = [registry];
  const metrics: Metrics = {
    registry,
    httpDuration: new Histogram({ name: HTTP_DURATION, help: 'HTTP request latency, by route and status', labelNames: ['method', 'route', 'status'], buckets: LATENCY_BUCKETS, registers }),
    httpRequests: new Counter({
      name: 'latchkey_http_requests_total',
      help: 'HTTP requests answered, by route and status',
      labelNames: ['method', 'route', 'status'],
      registers,
      // The duration histogram counts every request it times, with the same labels: the count is
      // read from it at scrape time, so a request costs one observation instead of two.
      async collect() {
        const { values } = await metrics.httpDuration.get();
        this.reset();
        for (const { metricName, labels, value } of values) if (metricName === `${HTTP_DURATION}_count`) this.inc(labels as Record<'method' | 'route' | 'status', string>, value);
      },
    }),
    unlockPhase: new Histogram({ name: 'latchkey_unlock_phase_seconds', help: 'Unlock latency by phase: verification, database, lock (round trip)', labelNames: ['phase'], buckets: LATENCY_BUCKETS, registers }),
    commandsTimedOut: new Counter({ name: 'latchkey_lock_commands_timed_out_total', help: 'Lock commands that got no reply in time (504)', registers }),
    lockReports: new Counter({ name: 'latchkey_lock_reports_total', help: 'Lock reports this instance took to record, by kind (online, state, event, operation)', labelNames: ['kind'], registers }),
    rateLimitRefusals: new Counter({ name: 'latchkey_rate_limit_refusals_total', help: 'Requests refused by a rate limit (429), by route', labelNames: ['route'], registers }),
    sseStreamsOpen: new Gauge({ name: 'latchkey_sse_streams_open', help: 'Event streams open on this instance', registers }),
    attach: (attached) => void (sources = attached),
  };
  new Gauge({ name: 'latchkey_locks_online', help: 'Locks this instance sees online', registers, collect() { this.set(sources?.locksOnline() ?? 0); } });
  new Gauge({ name: 'latchkey_broker_reconnects', help: 'Reconnections of the lock link to the MQTT broker since start', registers, collect() { this.set(sources?.brokerReconnects() ?? 0); } });
  new Gauge({
    name: 'latchkey_audit_checkpoint_lag_seconds',
    help: 'Seconds since the oldest audit entry not yet covered by a signed checkpoint was recorded (0: all covered; NaN: the database did not answer)',
    registers,
    async collect() {
      // A scrape must not fail for it: an unknown lag is NaN, and /readyz names the database.
      this.set(sources ? await sources.auditCheckpointLag().catch(() => NaN) : 0);
    },
  });
  new Gauge({ name: 'latchkey_bus_reconnects', help: 'Reconnections of the event bus (Redis) since start', registers, collect() { this.set(sources?.busReconnects() ?? 0); } });
  return metrics;
}

/** Seconds since `start` (a `process.hrtime.bigint()`), for histograms. */
export function secondsSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}
