import { authenticationPlugin } from './accounts/authentication-plugin.js';
import { alarmRoutes } from './alarms/routes.js';
import { accountsRoutes } from './accounts/routes.js';
import { platformRoutes } from './applications/routes.js';
import { auditRoutes } from './audit/routes.js';
import { logoOrigins } from './cdn/origins.js';
import { cdnRoutes } from './cdn/routes.js';
import { certificateRoutes } from './certificates/routes.js';
import { consoleRoutes } from './console/routes.js';
import type { AppContext, HttpParts } from './context.js';
import { directoryRoutes } from './directory/routes.js';
import { eventRoutes } from './events/routes.js';
import type { HttpApp } from './http/app.js';
import { brokerAuthRoutes } from './lock-link/routes.js';
import { keypadCodeRoutes } from './keypad-codes/routes.js';
import { lockRoutes } from './locks/routes.js';
import { observeHttp, serveMetrics } from './metrics/serve.js';
import { operationRoutes } from './operations/routes.js';
import { sharingRoutes } from './sharing/routes.js';
import { siteRoutes } from './sites/routes.js';
import { probeRoutes, systemRoutes } from './system/routes.js';
import { tileRoutes } from './tiles/routes.js';
import { webhookRoutes } from './webhooks/routes.js';

/**
 * Every route of the service. The probes, the metrics scrape and the console's files come first,
 * outside the API: no caller to identify, no request counted (a count could itself need Redis).
 * The API's scope starts with the authentication plugin, then each feature's routes.ts, in order.
 */
export async function registerRoutes(app: HttpApp, ctx: AppContext, { applications, liveEvents }: HttpParts): Promise<void> {
  observeHttp(app, ctx.metrics);
  await app.register(probeRoutes(ctx));
  const metricsListener = await serveMetrics(app, { metrics: ctx.metrics, config: ctx.config.metrics, host: ctx.config.host, logger: ctx.logger });
  if (metricsListener) ctx.closers.push(() => new Promise<void>((resolve) => metricsListener.close(() => resolve())));
  await app.register(async (api) => {
    await api.register(authenticationPlugin(ctx, applications.tokens));
    await api.register(systemRoutes(ctx));
    await api.register(accountsRoutes(ctx));
    await api.register(platformRoutes(ctx, applications));
    await api.register(directoryRoutes(ctx, applications.tokens));
    await api.register(cdnRoutes(ctx, applications.embedded, applications.exists));
    await api.register(auditRoutes(ctx));
    await api.register(alarmRoutes(ctx));
    await api.register(eventRoutes(ctx, liveEvents, applications.tokens));
    await api.register(lockRoutes(ctx));
    await api.register(sharingRoutes(ctx));
    await api.register(keypadCodeRoutes(ctx));
    await api.register(siteRoutes(ctx));
    await api.register(tileRoutes(ctx));
    await api.register(webhookRoutes(ctx));
    await api.register(certificateRoutes(ctx));
    await api.register(operationRoutes(ctx));
    await api.register(brokerAuthRoutes(ctx));
  });
  await app.register(consoleRoutes({ origins: logoOrigins(ctx.config) }));
}
