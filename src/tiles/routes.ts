import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { auditClientOf } from '../audit/client.js';
import type { AppContext } from '../context.js';
import { pickVersion } from '../http/negotiation.js';
import { errorResponses, NoContent } from '../http/schemas.js';
import { pathId } from '../ids/path-ids.js';
import { linkTile, resolveTile, setTileLocks, unlinkTile } from './service.js';

const TileParams = Type.Object({ tileId: Type.String({ description: 'tile UUID' }) });
const LockTileParams = Type.Object({ lockId: Type.String({ description: 'lock UUID' }), tileId: Type.String({ description: 'tile UUID' }) });

const TileV2 = Type.Object({ deviceId: Type.String({ description: "the caller's oldest lock the tile opens" }) }, { title: 'TileV2' });
const TileV3 = Type.Object(
  {
    siteId: Type.String({ description: 'the site of the first lock; "" when it has none' }),
    tileId: Type.String(),
    deviceIds: Type.Array(Type.String(), { description: "the tile's locks the caller is enrolled on, oldest first" }),
  },
  { title: 'TileV3' },
);
const TileLocksBody = Type.Object({
  siteId: Type.String({ minLength: 1, maxLength: 64 }),
  devices: Type.Array(Type.String({ maxLength: 64 }), { maxItems: 1000, description: 'every lock the tile opens among those the caller administers; [] unlinks them all' }),
});

export function tileRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/tile/:tileId', {
      schema: {
        tags: ['tiles'],
        summary: 'The locks a tile opens: 303 to the first (v1), {deviceId} (v2), {siteId, tileId, deviceIds} (v3)',
        params: TileParams,
        response: {
          200: Type.Union([TileV3, TileV2]),
          303: Type.Null({ description: "Location: {base_url}/device/{lock_id}, the caller's oldest lock the tile opens" }),
          ...errorResponses(401, 404, 406),
        },
      },
      handler: async (request, reply) => {
        const tile = await resolveTile(ctx, request.caller, pathId(request.params.tileId, 'tile'));
        const version = pickVersion(request.apiVersion, [1, 2, 3] as const);
        if (version === 3) return { siteId: tile.siteId, tileId: tile.tileId, deviceIds: tile.lockIds };
        if (version === 2) return { deviceId: tile.lockIds[0]! };
        return reply.redirect(`${ctx.config.baseUrl}/device/${tile.lockIds[0]!}`, 303);
      },
    });

    app.put('/tile/:tileId', {
      schema: {
        tags: ['tiles'],
        summary: 'Set the locks (all in one site, all administered by the caller) a tile opens',
        params: TileParams,
        body: TileLocksBody,
        response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 409) },
      },
      handler: async (request, reply) => {
        await setTileLocks(ctx, request.caller, pathId(request.params.tileId, 'tile'), request.body.siteId, request.body.devices, auditClientOf(request));
        return reply.code(204).send(null);
      },
    });

    app.put('/device/:lockId/tile/:tileId', {
      schema: { tags: ['tiles'], summary: 'Link a tile to the lock (ADMIN); 409 while it is linked to another lock', params: LockTileParams, response: { 204: NoContent, ...errorResponses(401, 403, 404, 409) } },
      handler: async (request, reply) => {
        await linkTile(ctx, request.caller, pathId(request.params.lockId, 'lock'), pathId(request.params.tileId, 'tile'), auditClientOf(request));
        return reply.code(204).send(null);
      },
    });

    app.delete('/device/:lockId/tile/:tileId', {
      schema: { tags: ['tiles'], summary: 'Unlink a tile from the lock (ADMIN)', params: LockTileParams, response: { 204: NoContent, ...errorResponses(401, 403, 404) } },
      handler: async (request, reply) => {
        await unlinkTile(ctx, request.caller, pathId(request.params.lockId, 'lock'), pathId(request.params.tileId, 'tile'), auditClientOf(request));
        return reply.code(204).send(null);
      },
    });
  };
}
