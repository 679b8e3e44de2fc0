import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { errorResponses } from '../http/schemas.js';
import { LockIdParams, pathId } from '../ids/path-ids.js';
import { SiteIdParams } from '../sites/schemas.js';
import { presentAlarm, presentSiteAlarms } from './presenters.js';
import { AlarmSettings, AlarmSettingsChange, LockAlarms, SiteAlarms } from './schemas.js';
import { changeAlarmSettings, readAlarmSettings } from './settings.js';
import { readAdministeredAlarms, readLockAlarms, readSiteAlarms } from './service.js';

export function alarmRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/device/:lockId/alarms', {
      schema: {
        tags: ['alarms'],
        summary: "A lock's open alarms and their history (admins)",
        params: LockIdParams,
        response: { 200: LockAlarms, ...errorResponses(401, 403, 404) },
      },
      handler: async (request) => {
        const alarms = await readLockAlarms(ctx, request.caller, pathId(request.params.lockId, 'lock'));
        return { open: alarms.open.map(presentAlarm), history: alarms.history.map(presentAlarm) };
      },
    });

    app.get('/site/:siteId/alarms', {
      schema: {
        tags: ['alarms'],
        summary: "Open alarms and their history of the site's locks the caller administers",
        params: SiteIdParams,
        response: { 200: SiteAlarms, ...errorResponses(401, 404) },
      },
      handler: async (request) => presentSiteAlarms(await readSiteAlarms(ctx, request.caller, pathId(request.params.siteId, 'site'))),
    });

    app.get('/alarms', {
      schema: {
        tags: ['alarms'],
        summary: 'Open alarms and their history of every lock the caller administers',
        response: { 200: SiteAlarms, ...errorResponses(401) },
      },
      handler: async (request) => presentSiteAlarms(await readAdministeredAlarms(ctx, request.caller)),
    });

    app.get('/device/:lockId/alarm-settings', {
      schema: {
        tags: ['alarms'],
        summary: "A lock's alarm thresholds (admins)",
        params: LockIdParams,
        response: { 200: AlarmSettings, ...errorResponses(401, 403, 404) },
      },
      handler: (request) => readAlarmSettings(ctx, request.caller, pathId(request.params.lockId, 'lock')),
    });

    app.put('/device/:lockId/alarm-settings', {
      schema: {
        tags: ['alarms'],
        summary: "Change a lock's alarm thresholds (admins); answers all of them",
        params: LockIdParams,
        body: AlarmSettingsChange,
        response: { 200: AlarmSettings, ...errorResponses(400, 401, 403, 404) },
      },
      handler: (request) => changeAlarmSettings(ctx, request.caller, pathId(request.params.lockId, 'lock'), request.body),
    });
  };
}
