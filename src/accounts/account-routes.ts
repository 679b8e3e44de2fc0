import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { AppContext } from '../context.js';
import { errorResponses, NoContent } from '../http/schemas.js';
import { addressKey } from '../limits/address-key.js';
import { accountWithPublicKey, changePassword, resendVerification, updateDisplayName, verifyEmail } from './account.js';
import type { Caller } from './caller.js';
import { deleteAccount } from './delete-account.js';
import { completePasswordReset, startPasswordReset } from './password-reset.js';
import { presentCallerAccount } from './presenters.js';
import { AccountResponse, AccountUpdate, PasswordChange, PasswordResetFinish, PasswordResetStart, VerifyQuery } from './schemas.js';

/**
 * The caller's account as JSON, made by the route's own response serializer, once per held
 * caller: a held session's caller is one frozen object (LiveSessions.callerOf), so its every
 * request after the first sends the same text (the Base64 key is the longest field to escape).
 */
function sendCallerAccount(ctx: AppContext, reply: FastifyReply, caller: Caller): void {
  const serialise = () => reply.serialize(presentCallerAccount(caller)) as string;
  const body = ctx.liveSessions === null ? serialise() : ctx.liveSessions.accountJsonOf(caller, serialise);
  reply.type('application/json; charset=utf-8').send(body);
}

export function accountRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/account', {
      schema: { tags: ['account'], summary: 'The signed-in account', response: { 200: AccountResponse, ...errorResponses(401, 406) } },
      // Synchronous when the legacy key exists: nothing to wait for, so no promise per request on the busiest read.
      handler: (request, reply) => {
        if (request.caller.publicKey === null) return accountWithPublicKey(ctx, request.caller);
        sendCallerAccount(ctx, reply, request.caller);
      },
    });

    app.post('/account', {
      schema: { tags: ['account'], summary: 'Update the display name', body: AccountUpdate, response: { 204: NoContent, ...errorResponses(400, 401) } },
      handler: async (request, reply) => {
        await updateDisplayName(ctx, request.caller, request.body.displayName);
        return reply.code(204).send(null);
      },
    });

    app.post('/account/password', {
      schema: { tags: ['account'], summary: 'Change the password (other sessions end)', body: PasswordChange, response: { 204: NoContent, ...errorResponses(400, 401, 403, 429) } },
      handler: async (request, reply) => {
        await changePassword(ctx, request.caller, request.body.oldPassword, request.body.newPassword);
        return reply.code(204).send(null);
      },
    });

    // No sign-in needed (spec), but an account with held shares must be signed in too (verifyEmail).
    app.put('/account/email/verify', {
      config: { auth: 'optional' },
      onRequest: async (request) => ctx.limits.authPerIp.consume(addressKey(request.ip)),
      schema: {
        tags: ['account'],
        summary: 'Verify the email with the code it received; an account with shares waiting for it must send its own token too (403 sign_in_required)',
        security: [],
        querystring: VerifyQuery,
        response: { 204: NoContent, ...errorResponses(400, 403, 429) },
      },
      handler: async (request, reply) => {
        await verifyEmail(ctx, request.query.code, (request.caller as Caller | undefined)?.userId);
        return reply.code(204).send(null);
      },
    });

    // Older emails link here. Opening a link must not verify (mail scanners open links): the console's page verifies on a click, signed in.
    app.get('/account/email/verify', {
      config: { auth: 'none', anyAccept: true },
      schema: { tags: ['account'], summary: "Old verification links: 303 to the console's verification page", security: [], querystring: VerifyQuery,
        response: { 303: Type.Null({ description: "to the console's verification page (Location)" }), ...errorResponses(400, 429) } },
      handler: async (request, reply) => reply.code(303).header('location', `/console/verify?code=${encodeURIComponent(request.query.code)}`).send(null),
    });

    app.delete('/account', {
      schema: {
        tags: ['account'],
        summary: 'Delete the account: leaves every lock (409 when the last admin of a lock others use), ends every session',
        response: { 204: NoContent, ...errorResponses(401, 409) },
      },
      handler: async (request, reply) => {
        await deleteAccount(ctx, request.caller);
        return reply.code(204).send(null);
      },
    });

    app.post('/account/password/reset/initialize', {
      config: { auth: 'none' },
      onRequest: async (request) => ctx.limits.authPerIp.consume(addressKey(request.ip)),
      schema: {
        tags: ['account'],
        summary: 'Email a single-use password reset token; 204 whether or not the account exists',
        security: [],
        body: PasswordResetStart,
        response: { 204: NoContent, ...errorResponses(400, 429) },
      },
      handler: async (request, reply) => {
        await startPasswordReset(ctx, request.body.email, addressKey(request.ip));
        return reply.code(204).send(null);
      },
    });

    app.post('/account/password/reset/verify', {
      config: { auth: 'none' },
      onRequest: async (request) => ctx.limits.authPerIp.consume(addressKey(request.ip)),
      schema: {
        tags: ['account'],
        summary: 'Set a new password with the emailed token; every session of the account ends',
        security: [],
        body: PasswordResetFinish,
        response: { 204: NoContent, ...errorResponses(400, 429) },
      },
      handler: async (request, reply) => {
        await completePasswordReset(ctx, { ...request.body, address: addressKey(request.ip) });
        return reply.code(204).send(null);
      },
    });

    app.post('/account/email/reverify', {
      schema: { tags: ['account'], summary: 'Send a new verification code', response: { 204: NoContent, ...errorResponses(401, 429) } },
      handler: async (request, reply) => {
        await resendVerification(ctx, request.caller);
        return reply.code(204).send(null);
      },
    });
  };
}
