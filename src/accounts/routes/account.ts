import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { isAppError } from '../../errors/catalogue.js';
import { errorResponses, NoContent } from '../../http/schemas.js';
import { addressKey } from '../../http/rate-limiter.js';
import { accountWithPublicKey, changePassword, resendVerification, updateDisplayName, verifyEmail } from '../account.js';
import { deleteAccount } from '../delete-account.js';
import { completePasswordReset, startPasswordReset } from '../password-reset.js';
import { presentCallerAccount } from '../presenters.js';
import { AccountResponse, AccountUpdate, PasswordChange, PasswordResetFinish, PasswordResetStart, VerifyQuery } from '../schemas.js';

export function accountRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/account', {
      schema: { tags: ['account'], summary: 'The signed-in account', response: { 200: AccountResponse, ...errorResponses(401, 406) } },
      // Synchronous when the legacy key exists: nothing to wait for, so no promise per request on the busiest read.
      handler: (request) => (request.caller.publicKey !== null ? presentCallerAccount(request.caller) : accountWithPublicKey(ctx, request.caller)),
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

    app.put('/account/email/verify', {
      config: { auth: 'none' },
      onRequest: async (request) => ctx.limits.authPerIp.consume(addressKey(request.ip)),
      schema: { tags: ['account'], summary: 'Verify the email with the code it received', security: [], querystring: VerifyQuery, response: { 204: NoContent, ...errorResponses(400, 429) } },
      handler: async (request, reply) => {
        await verifyEmail(ctx, request.query.code);
        return reply.code(204).send(null);
      },
    });

    // The emailed link is opened in a browser (GET): verify and answer a page a person can read.
    app.get('/account/email/verify', {
      config: { auth: 'none', anyAccept: true },
      onRequest: async (request) => ctx.limits.authPerIp.consume(addressKey(request.ip)),
      schema: { tags: ['account'], summary: 'Verification link target: verifies and answers an HTML page', security: [], querystring: VerifyQuery },
      handler: async (request, reply) => {
        const verified = await verifyEmail(ctx, request.query.code).then(
          () => true,
          (err: unknown) => {
            if (isAppError(err) && err.status === 400) return false;
            throw err;
          },
        );
        const text = verified ? 'Your email address is verified. You can close this page.' : 'This verification link is invalid, already used or expired.';
        return reply
          .code(verified ? 200 : 400)
          .type('text/html; charset=utf-8')
          .send(`<!doctype html><html><head><meta charset="utf-8"><title>Email verification</title></head><body style="font-family:sans-serif;padding:24px"><p>${text}</p></body></html>`);
      },
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
        await startPasswordReset(ctx, request.body.email);
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
