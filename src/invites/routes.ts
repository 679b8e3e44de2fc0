import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { Email } from '../accounts/schemas.js';
import type { AppContext } from '../context.js';
import { errorResponses } from '../http/schemas.js';
import { inviteByEmail } from './service.js';

const InviteParams = Type.Object({ email: Email });
const PublicKeyResponse = Type.Object({ id: Type.String(), publicKey: Type.String({ description: 'Base64 DER SubjectPublicKeyInfo (RSA)' }) });

/** GET and POST (decisions §1); a POST body, `null` included, is ignored. */
export function inviteRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    for (const method of ['GET', 'POST'] as const) {
      app.route({
        method,
        url: '/share/invite/:email',
        schema: {
          tags: ['locks'],
          summary: 'The id and public key of a user to share with; invites an unknown email',
          params: InviteParams,
          response: { 200: PublicKeyResponse, ...errorResponses(400, 401, 403, 406) },
        },
        handler: async (request) => inviteByEmail(ctx, request.caller, request.params.email),
      });
    }
  };
}
