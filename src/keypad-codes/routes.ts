import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { auditClientOf } from '../audit/client.js';
import type { AppContext } from '../context.js';
import { errorResponses } from '../http/schemas.js';
import { isUuid, pathId } from '../ids/path-ids.js';
import { errors } from '../errors/catalogue.js';
import { listCodes, readCode } from './reads.js';
import { ChangeCodeBody, CodeIdParams, CodeListQuery, CreatedCode, KeypadCode, NewCodeBody, RevokeCodeBody, SendCodeBody } from './schemas.js';
import { sendCodeToHolder } from './send.js';
import { changeCode, createCode, revokeCode } from './service.js';

/** Keypad codes (issue 30, docs/keypad-codes.md): a project extension, for administrators of the locks. */
export function keypadCodeRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post('/lock-codes', {
      schema: {
        tags: ['keypad codes'],
        summary: 'Create a keypad code on one lock or a set of locks (a signed ADD_CODE per lock); a generated code is shown this once',
        body: NewCodeBody,
        response: { 201: CreatedCode, ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
      handler: async (request, reply) => reply.code(201).send(await createCode(ctx, request.caller, request.body, auditClientOf(request))),
    });

    app.get('/lock-codes', {
      schema: {
        tags: ['keypad codes'],
        summary: 'The keypad codes of the locks the caller administers (or of one of them), never their digits',
        querystring: CodeListQuery,
        response: { 200: Type.Array(KeypadCode), ...errorResponses(401, 403, 404) },
      },
      handler: async (request) => {
        const { lockId } = request.query;
        if (lockId !== undefined && !isUuid(lockId)) throw errors.notFound('lock');
        return listCodes(ctx, request.caller, lockId === undefined ? null : lockId.toLowerCase());
      },
    });

    app.get('/lock-codes/:codeId', {
      schema: { tags: ['keypad codes'], summary: 'One keypad code, with its state on each lock the caller administers', params: CodeIdParams, response: { 200: KeypadCode, ...errorResponses(401, 404) } },
      handler: async (request) => readCode(ctx, request.caller, pathId(request.params.codeId, 'code')),
    });

    app.put('/lock-codes/:codeId', {
      schema: {
        tags: ['keypad codes'],
        summary: "Change a code's window, schedule or maximum uses (an ADD_CODE for each of its locks), or put it on more locks",
        params: CodeIdParams,
        body: ChangeCodeBody,
        response: { 200: KeypadCode, ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
      handler: async (request) => changeCode(ctx, request.caller, pathId(request.params.codeId, 'code'), request.body.tokens, auditClientOf(request)),
    });

    app.post('/lock-codes/:codeId/revoke', {
      schema: {
        tags: ['keypad codes'],
        summary: 'Take a code off locks (a signed REMOVE_CODE per lock)',
        params: CodeIdParams,
        body: RevokeCodeBody,
        response: { 200: KeypadCode, ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
      handler: async (request) => revokeCode(ctx, request.caller, pathId(request.params.codeId, 'code'), request.body.tokens, auditClientOf(request)),
    });

    app.post('/lock-codes/:codeId/send', {
      schema: {
        tags: ['keypad codes'],
        summary: "Email a new code to its holder: by its creator, within an hour of creating it, with the code's digits; only to an address that proved itself (a guest's address no Latchkey account verified is answered 204 too, and not sent)",
        params: CodeIdParams,
        body: SendCodeBody,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
      handler: async (request, reply) => {
        await sendCodeToHolder(ctx, request.caller, pathId(request.params.codeId, 'code'), request.body);
        return reply.code(204).send(null);
      },
    });
  };
}
