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
import { namedPlugin } from './http/plugin-name.js';

/**
 * Every route of the service. The probes, the metrics scrape and the console's files come first,
 * outside the API: no caller to identify, no request counted (a count could itself need Redis).
 * The API's scope starts with the authentication plugin, then each feature's routes.ts, in order.
 */
export async function registerRoutes(app: HttpApp, ctx: AppContext, { applications, liveEvents }: HttpParts): Promise<void> {
  observeHttp(app, ctx.metrics);
  await app.register(namedPlugin('probeRoutes', probeRoutes(ctx)));
  const metricsListener = await serveMetrics(app, { metrics: ctx.metrics, config: ctx.config.metrics, host: ctx.config.host, logger: ctx.logger });
  if (metricsListener) ctx.closers.push(() => new Promise<void>((resolve) => metricsListener.close(() => resolve())));
  await app.register(namedPlugin('api', async (api) => {
    await api.register(authenticationPlugin(ctx, applications.tokens));
    await api.register(namedPlugin('systemRoutes', systemRoutes(ctx)));
    await api.register(namedPlugin('accountsRoutes', accountsRoutes(ctx)));
    await api.register(namedPlugin('platformRoutes', platformRoutes(ctx, applications)));
    await api.register(namedPlugin('directoryRoutes', directoryRoutes(ctx, applications.tokens)));
    await api.register(namedPlugin('cdnRoutes', cdnRoutes(ctx, applications.embedded, applications.exists)));
    await api.register(namedPlugin('auditRoutes', auditRoutes(ctx)));
    await api.register(namedPlugin('alarmRoutes', alarmRoutes(ctx)));
    await api.register(namedPlugin('eventRoutes', eventRoutes(ctx, liveEvents, applications.tokens)));
    await api.register(namedPlugin('lockRoutes', lockRoutes(ctx)));
    await api.register(namedPlugin('sharingRoutes', sharingRoutes(ctx)));
    await api.register(namedPlugin('keypadCodeRoutes', keypadCodeRoutes(ctx)));
    await api.register(namedPlugin('siteRoutes', siteRoutes(ctx)));
    await api.register(namedPlugin('tileRoutes', tileRoutes(ctx)));
    await api.register(namedPlugin('webhookRoutes', webhookRoutes(ctx)));
    await api.register(namedPlugin('certificateRoutes', certificateRoutes(ctx)));
    await api.register(namedPlugin('operationRoutes', operationRoutes(ctx)));
    await api.register(namedPlugin('brokerAuthRoutes', brokerAuthRoutes(ctx)));
  }));
  await app.register(namedPlugin('consoleRoutes', consoleRoutes({ origins: logoOrigins(ctx.config) })));
}
