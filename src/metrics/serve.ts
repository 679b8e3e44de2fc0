import { createServer, type Server } from 'node:http';
import type { HttpApp } from '../http/app.js';
import type { Logger } from 'pino';
import { sameSecret } from '../crypto/compare.js';
import type { Metrics } from './registry.js';

/** Counts and times every answered request by its route pattern (never the raw URL: bounded labels). */
export function observeHttp(app: HttpApp, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const labels = { method: request.method, route, status: String(reply.statusCode) };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
    if (reply.statusCode === 429) metrics.rateLimitRefusals.inc({ route });
    // 504 is only ever lock_timeout (src/errors/catalogue.ts).
    if (reply.statusCode === 504) metrics.commandsTimedOut.inc();
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
      if (!allowed(request.headers.authorization)) return reply.code(401).header('www-authenticate', 'Bearer').send({ code: 401, message: 'metrics token required', error: 'unauthenticated' });
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
