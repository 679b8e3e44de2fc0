import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { authenticate, bearerToken, type ExternalTokenVerifier } from '../accounts/authenticate.js';
import type { AppContext } from '../context.js';
import { errors } from '../errors/catalogue.js';
import { errorResponses } from '../http/schemas.js';
import type { LiveEvents } from './live-events.js';
import { currentAccess, MAX_STREAM_LOCKS, startingCursor, streamLocks } from './open-stream.js';
import { EventStream } from './stream.js';

const EventsQuery = Type.Object({
  device: Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: MAX_STREAM_LOCKS, description: 'a lock id; repeat for several' }),
  lastEventId: Type.Optional(Type.String({ maxLength: 4096, description: 'resume after this event id (as the Last-Event-ID header)' })),
});

const EventsHeaders = Type.Object({ 'last-event-id': Type.Optional(Type.String({ maxLength: 4096 })) });

/** A slow reader may have this much unread before it is disconnected (it resumes with Last-Event-ID). */
const MAX_BUFFERED_BYTES = 1024 * 1024;

/** GET /device/events: live audit entries of the caller's locks as server-sent events (decisions §5). */
export function eventRoutes(ctx: AppContext, live: LiveEvents, external: ExternalTokenVerifier | null): FastifyPluginAsyncTypebox {
  return async (app) => {
    const { feed, streams } = live;
    // Open streams would keep the HTTP server from closing: end them first.
    app.addHook('preClose', async () => live.close());

    app.get('/device/events', {
      config: { eventStream: true },
      schema: {
        tags: ['locks'],
        summary: 'Live audit entries of the listed locks (text/event-stream)',
        querystring: EventsQuery,
        headers: EventsHeaders,
        response: {
          200: {
            description: 'server-sent events: each audit entry as `event: <type>`, `id: <cursor>` and `data: <entry JSON>`, keep-alive comments in between; resume with Last-Event-ID',
            content: { 'text/event-stream': { schema: Type.String({ description: 'an endless text/event-stream' }) } },
          },
          ...errorResponses(400, 401, 403, 404, 406, 429, 503),
        },
      },
      handler: async (request, reply) => {
        if (!ctx.bus.status().connected) throw errors.sharedStateUnavailable();
        const { userId, applicationId } = request.caller;
        const token = bearerToken(request);
        const access = await streamLocks(ctx, userId, request.query.device);
        const { lockIds, endsAt } = access;
        const cursor = await startingCursor(ctx, access, request.headers['last-event-id'] ?? request.query.lastEventId);
        // Checked after the last await, so no two requests both pass it before either is added (issue 27 point 9).
        if (streams.countOf(userId) >= ctx.config.eventStreamsPerUser) throw errors.tooManyStreams();
        reply.hijack();
        const raw = reply.raw;
        raw.writeHead(200, {
          ...(reply.getHeaders() as Record<string, string>),
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache, no-transform',
          connection: 'keep-alive',
          'x-accel-buffering': 'no',
        });
        raw.write(': stream open\n\n');
        const stream = new EventStream(raw, feed, {
          userId,
          lockIds,
          cursor,
          accessEndsAt: endsAt,
          now: ctx.now,
          heartbeatMs: ctx.config.sseHeartbeatMs,
          maxBufferedBytes: MAX_BUFFERED_BYTES,
          adminOf: access.adminOf,
          access: (lockId) => currentAccess(ctx, lockId, userId),
          stillSignedIn: () => authenticate(ctx, external, token).then(() => true, () => false),
          applicationId,
          onClose: (closed) => {
            streams.delete(closed);
            ctx.metrics.sseStreamsOpen.dec();
          },
        });
        streams.add(stream);
        ctx.metrics.sseStreamsOpen.inc();
        stream.start();
      },
    });
  };
}
