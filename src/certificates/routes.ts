import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { errorResponses } from '../http/schemas.js';
import { CertificateRequest, CertificateResponse, CheckRequest, VerificationStarted, VerifyQuery } from './schemas.js';
import { checkVerification, requestCertificate, startVerification } from './service.js';

/** POST /auth/certificate, …/verify and …/check: certificates for ephemeral keys (decisions §3). */
export function certificateRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post('/auth/certificate', {
      schema: {
        tags: ['auth'],
        summary: 'Certify an Ed25519 ephemeral key; 423 when a secondary check is needed first',
        body: CertificateRequest,
        response: { 200: CertificateResponse, ...errorResponses(400, 401, 423, 429) },
      },
      handler: async (request) => requestCertificate(ctx, request.caller, request.body.ephemeralKey),
    });

    app.post('/auth/certificate/verify', {
      schema: {
        tags: ['auth'],
        summary: 'Send a 6-digit code (valid 5 minutes) for the secondary check of an ephemeral key',
        body: CertificateRequest,
        querystring: VerifyQuery,
        response: { 200: VerificationStarted, ...errorResponses(400, 401, 429) },
      },
      handler: async (request) => startVerification(ctx, request.caller, request.body.ephemeralKey, request.query.method),
    });

    app.post('/auth/certificate/check', {
      schema: {
        tags: ['auth'],
        summary: 'Prove the code and the key with a signature of the code; answers the certificate chain',
        body: CheckRequest,
        response: { 200: CertificateResponse, ...errorResponses(400, 401, 429) },
      },
      handler: async (request) => checkVerification(ctx, request.caller, request.body.verificationSignature),
    });
  };
}
