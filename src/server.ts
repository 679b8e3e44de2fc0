import { isCdnPath } from './cdn/routes.js';
import type { Config } from './config/config.js';
import { startupStep } from './config/startup-step.js';
import { closeContext, createContext, createHttpParts, type AppContext, type ContextOptions } from './context.js';
import { createHttpApp, type HttpApp } from './http/app.js';
import type { SchemaCompilers } from './http/schema-compilers.js';
import { registerRoutes } from './routes.js';
import type { LockLinkHooks } from './lock-link/subscribers.js';
import { startSubscribers, type Subscribers } from './subscribers.js';
import { openApiWebhooks } from './webhooks/schemas.js';

export interface RunningService {
  ctx: AppContext;
  app: HttpApp;
  /** The base URL the HTTP listener actually answers on (with the real port). */
  url: string;
  /** The background work started beside the routes (the lock link's recorders). */
  subscribers: Subscribers;
  close(): Promise<void>;
}

/**
 * Builds and starts the whole service: context, routes and subscribers, HTTP listener. `close()`
 * stops in reverse: stop accepting, finish requests in flight, stop the subscribers, then
 * release the context.
 */
export interface ServiceOptions extends ContextOptions {
  /** Tests: a reply of a status its route does not declare becomes a 500 told here (src/http/declared-statuses.ts). */
  onUndeclaredStatus?: (what: string) => void;
  /** Tests: compiled schemas shared by every service the process starts (src/http/schema-compilers.ts). */
  schemaCompilers?: SchemaCompilers;
  /** Tests: holds lock reports back before they are recorded (src/lock-link/subscribers.ts). */
  holdLockReport?: LockLinkHooks['holdReport'];
}

export async function startService(config: Config, options: ServiceOptions = {}): Promise<RunningService> {
  const ctx = await createContext(config, options);
  let app: HttpApp | null = null;
  let subscribers: Subscribers | null = null;
  try {
    const parts = createHttpParts(ctx);
    app = await createHttpApp({ logger: ctx.logger, baseUrl: config.baseUrl, trustProxy: config.trustProxy, requestTimeoutMs: config.httpRequestTimeoutMs, corsOrigin: (origin) => parts.applications.cors.allows(origin), corsOpenPath: isCdnPath, openApiWebhooks: openApiWebhooks(), ...(options.onUndeclaredStatus ? { onUndeclaredStatus: options.onUndeclaredStatus } : {}), ...(options.schemaCompilers ? { schemaCompilers: options.schemaCompilers } : {}) });
    await registerRoutes(app, ctx, parts);
    subscribers = await startSubscribers(ctx, options.holdLockReport ? { holdReport: options.holdLockReport } : {});
    await startupStep('PORT / HOST', 'cannot listen', () => app!.listen({ port: config.port, host: config.host }));
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const started = app;
    const running = subscribers;
    let closing: Promise<void> | null = null;
    return {
      ctx,
      app: started,
      url: `http://127.0.0.1:${port}`,
      subscribers: running,
      close: () => (closing ??= started.close().then(() => running.stop()).then(() => closeContext(ctx))),
    };
  } catch (err) {
    await app?.close();
    await subscribers?.stop();
    await closeContext(ctx);
    throw err;
  }
}
