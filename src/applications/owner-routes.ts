import { Type } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { errorResponses, NoContent } from '../http/schemas.js';
import { Foreign } from '../locks/schemas.js';
import { addOwner, listOwners, removeOwner } from './owners.js';
import { presentApplicationUser, presentOwner } from './presenters.js';
import type { OwnedApplication, PlatformApp } from './platform-app.js';
import { ApplicationParams } from './schemas.js';
import { DEFAULT_USER_PAGE, listApplicationUsers, MAX_USER_PAGE } from './user-list.js';

const tags = ['platform'];
const NullableString = Type.Union([Type.String(), Type.Null()]);

const OwnerBody = Type.Object({ userId: Type.String({ minLength: 1, maxLength: 64, description: 'a directly registered user' }) });
const OwnerResponse = Type.Object({ userId: Type.String(), email: NullableString, displayName: NullableString, orphan: Type.Boolean(), foreign: Foreign });
const UsersQuery = Type.Object({
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_USER_PAGE, default: DEFAULT_USER_PAGE, description: `users per page, at most ${MAX_USER_PAGE}` })),
  lastUserRetrieved: Type.Optional(Type.String({ maxLength: 64, description: 'the userId of the last user of the previous page' })),
});
const ApplicationUserResponse = Type.Object({
  userId: Type.String(),
  foreignKey: Type.Union([Type.String(), Type.Null()], { description: "the application's own id for the user (token sub)" }),
  displayName: NullableString,
  email: NullableString,
  emailVerified: Type.Boolean(),
  telephone: NullableString,
  telephoneVerified: Type.Boolean(),
  emailIndexed: Type.Boolean({ description: 'the user can be found by email (directory queries)' }),
  telephoneIndexed: Type.Boolean({ description: 'the user can be found by telephone' }),
  foreignKeyIndexed: Type.Boolean({ description: 'the user can be found by foreign key' }),
  lastUpdated: Type.String({ format: 'date-time', description: 'ISO-8601, UTC, to the second (as the docs show it)' }),
});

/** Owners and users of an application the caller owns (the ownership check is platformRoutes' hook). */
export function registerOwnerRoutes(app: PlatformApp, ctx: AppContext, application: OwnedApplication): void {
  app.get('/platform/application/:applicationId/owner', {
    schema: { tags, summary: "The application's owners", params: ApplicationParams, response: { 200: Type.Array(OwnerResponse), ...errorResponses(401, 403, 404) } },
    handler: async (request) => (await listOwners(ctx.db.kysely, application(request).id)).map(presentOwner),
  });

  app.post('/platform/application/:applicationId/owner', {
    schema: { tags, summary: 'Add an owner (a directly registered user)', params: ApplicationParams, body: OwnerBody, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
    handler: async (request, reply) => {
      await addOwner(ctx, application(request), request.body.userId);
      return reply.code(204).send(null);
    },
  });

  app.delete('/platform/application/:applicationId/owner', {
    schema: { tags, summary: 'Remove an owner; the last one cannot be removed (409)', params: ApplicationParams, body: OwnerBody, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 409) } },
    handler: async (request, reply) => {
      await removeOwner(ctx, application(request), request.body.userId);
      return reply.code(204).send(null);
    },
  });

  app.get('/platform/application/:applicationId/user', {
    schema: {
      tags,
      summary: "The application's users by id, a page at a time: pass the last userId of a page as lastUserRetrieved for the next",
      params: ApplicationParams,
      querystring: UsersQuery,
      response: { 200: Type.Array(ApplicationUserResponse), ...errorResponses(400, 401, 403, 404) },
    },
    handler: async (request) => {
      const rows = await listApplicationUsers(ctx.db.kysely, application(request).id, request.query.pageSize ?? DEFAULT_USER_PAGE, request.query.lastUserRetrieved);
      return rows.map(presentApplicationUser);
    },
  });
}
