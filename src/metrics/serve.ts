import { createServer, type Server } from 'node:http';
import type { HttpApp } from '../http/app.js';
import type { Logger } from 'pino';
import { sameSecret } from '../crypto/compare.js';
import { errors } from '../errors/catalogue.js';
import type { Metrics } from './registry.js';

type HttpLabels = Record<'method' | 'route' | 'status', string>;

/**
 * The label sets of answered requests, each made once (a route pattern, a method and a status: a
 * bounded set), rather than an object and a status string per request.
 */
function httpLabels(): (method: string, route: string, status: number) => HttpLabels {
  const byRoute = new Map<string, Array<{ method: string; status: number; labels: HttpLabels }>>();
  return (method, route, status) => {
    let sets = byRoute.get(route);
    if (sets === undefined) byRoute.set(route, (sets = []));
    for (const set of sets) if (set.status === status && set.method === method) return set.labels;
    const labels = Object.freeze({ method, route, status: String(status) });
    sets.push({ method, status, labels });
    return labels;
  };
}

/**
 * Times every answered request by its route pattern (never the raw URL: bounded labels); the
 * request count is read from the same histogram when scraped (src/metrics/registry.ts).
 */
export function observeHttp(app: HttpApp, metrics: Metrics): void {
  const labelsOf = httpLabels();
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const status = reply.statusCode;
    metrics.httpDuration.observe(labelsOf(request.method, route, status), reply.elapsedTime / 1000);
    if (status === 429) metrics.rateLimitRefusals.inc({ route });
    // 504 is only ever lock_timeout (src/errors/catalogue.ts).
    if (status === 504) metrics.commandsTimedOut.inc();
    done();
  });
}

function tokenMatches(header: string | undefined, token: string): boolean {
  return sameSecret(header ?? '', `Bearer ${token}`);
}

export interface MetricsEndpointOptions {
  metrics: Metrics;
  config: { port: number | null; token: string | null };
  host: string;
  logger: Logger;
}

/**
 * Serves GET /metrics: on the API's listener when only a token is configured, on a listener of its
 * own when METRICS_PORT is (token still checked if also set). Returns the separate listener, if any.
 */
export async function serveMetrics(app: HttpApp, options: MetricsEndpointOptions): Promise<Server | null> {
  const { metrics, config } = options;
  const allowed = (authorization: string | undefined) => config.token === null || tokenMatches(authorization, config.token);
  if (config.port === null) {
    if (config.token === null) return null;
    app.get('/metrics', { config: { auth: 'none', anyAccept: true }, schema: { hide: true } }, async (request, reply) => {
      if (!allowed(request.headers.authorization)) throw errors.metricsTokenRequired();
      return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
    });
    return null;
  }
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') return void res.writeHead(404).end();
    if (!allowed(req.headers.authorization)) return void res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
    metrics.registry.metrics().then(
      (body) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(body),
      (err: unknown) => {
        options.logger.error({ err }, 'metrics failed');
        res.writeHead(500).end();
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port!, options.host, () => resolve());
  });
  return server;
}
