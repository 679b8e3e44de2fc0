import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { errorResponses, NoContent } from '../http/schemas.js';
import { pathId } from '../locks/ids.js';
import { linkTile, resolveTile, unlinkTile } from './service.js';

const TileParams = Type.Object({ tileId: Type.String({ description: 'tile UUID' }) });
const LockTileParams = Type.Object({ lockId: Type.String({ description: 'lock UUID' }), tileId: Type.String({ description: 'tile UUID' }) });

export function tileRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/tile/:tileId', {
      schema: {
        tags: ['tiles'],
        summary: 'Where a tile points: 303 to its lock for a member of that lock',
        params: TileParams,
        response: { 303: Type.Null({ description: 'Location: {base_url}/device/{lock_id}' }), ...errorResponses(401, 404, 406) },
      },
      handler: async (request, reply) => {
        const lockId = await resolveTile(ctx, request.caller, pathId(request.params.tileId, 'tile'));
        return reply.redirect(`${ctx.config.baseUrl}/device/${lockId}`, 303);
      },
    });

    app.put('/device/:lockId/tile/:tileId', {
      schema: { tags: ['tiles'], summary: 'Link a tile to the lock (ADMIN)', params: LockTileParams, response: { 204: NoContent, ...errorResponses(401, 403, 404, 409) } },
      handler: async (request, reply) => {
        await linkTile(ctx, request.caller, pathId(request.params.lockId, 'lock'), pathId(request.params.tileId, 'tile'));
        return reply.code(204).send(null);
      },
    });

    app.delete('/device/:lockId/tile/:tileId', {
      schema: { tags: ['tiles'], summary: 'Unlink a tile from the lock (ADMIN)', params: LockTileParams, response: { 204: NoContent, ...errorResponses(401, 403, 404) } },
      handler: async (request, reply) => {
        await unlinkTile(ctx, request.caller, pathId(request.params.lockId, 'lock'), pathId(request.params.tileId, 'tile'));
        return reply.code(204).send(null);
      },
    });
  };
}
