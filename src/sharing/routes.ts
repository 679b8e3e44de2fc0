import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { errorResponses } from '../http/schemas.js';
import { LockIdParams, UserIdParams, pathId } from '../ids/path-ids.js';
import { countHeldShares } from './held-shares.js';
import { inviteByEmail } from './invites.js';
import { presentLockUser, presentUserWithLocks } from './presenters.js';
import { InviteParams, InviteQuery, LockUserResponse, PublicKeyResponse, VisitBody, VisitResponse, WaitingSharesResponse, UserWithLocksResponse } from './schemas.js';
import { takeVisit } from './visitors.js';
import { isTrueFlag } from '../accounts/schemas.js';
import { getUserWithLocks, listUsersOfLock } from './users.js';

/** Who is enrolled where, for administrators, and the invitation of a user to share with. */
export function sharingRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/device/:lockId/users', {
      schema: { tags: ['locks'], summary: "The lock's users (ADMIN only)", params: LockIdParams, response: { 200: Type.Array(LockUserResponse), ...errorResponses(401, 403, 404, 406) } },
      handler: async (request) => (await listUsersOfLock(ctx, request.caller, pathId(request.params.lockId, 'lock'))).map(presentLockUser),
    });

    app.get('/user/:userId', {
      schema: {
        tags: ['locks'],
        summary: "A user and their enrolments on the locks the caller administers",
        params: UserIdParams,
        response: { 200: UserWithLocksResponse, ...errorResponses(401, 404, 406) },
      },
      handler: async (request) => presentUserWithLocks(await getUserWithLocks(ctx, request.caller, pathId(request.params.userId, 'user'))),
    });

    // Only a count: the account has not proved its address, so the doors' names (others' text) are not shown to it.
    app.get('/share/waiting', {
      schema: { tags: ['locks'], summary: "How many shares wait for the caller's email to be verified", response: { 200: WaitingSharesResponse, ...errorResponses(401, 406) } },
      handler: async (request) => ({ waiting: await countHeldShares(ctx.db.kysely, request.caller.userId) }),
    });

    // GET and POST (decisions §1); a POST body, `null` included, is ignored.
    for (const method of ['GET', 'POST'] as const) {
      app.route({
        method,
        url: '/share/invite/:email',
        schema: {
          tags: ['locks'],
          summary: 'The id and public key of a user to share with; invites an unknown email',
          params: InviteParams,
          querystring: InviteQuery,
          response: { 200: PublicKeyResponse, ...errorResponses(400, 401, 403, 404, 406) },
        },
        handler: async (request) => {
          const { device, visitor } = request.query;
          return inviteByEmail(ctx, request.caller, request.params.email, device === undefined ? undefined : pathId(device, 'lock'), isTrueFlag(visitor));
        },
      });
    }

    app.post('/share/visit', {
      config: { auth: 'none' },
      schema: {
        tags: ['locks'],
        summary: 'A visitor opens their emailed link (once): the email counts as verified, the shares held for it come in, the browser key is remembered (certified without a code) and a session opens. Beyond the spec',
        security: [],
        body: VisitBody,
        response: { 200: VisitResponse, ...errorResponses(400, 406) },
      },
      handler: async (request) => takeVisit(ctx, request.body.token, request.body.ephemeralKey),
    });
  };
}
