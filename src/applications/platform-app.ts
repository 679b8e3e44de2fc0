import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { ApplicationRow } from './queries.js';

/** The Fastify scope of the `/platform/application*` routes (routes.ts, credential-routes.ts). */
export type PlatformApp = Parameters<FastifyPluginAsyncTypebox>[0];
/** The application of a `{applicationId}` route, already checked to be the caller's own. */
export type OwnedApplication = (request: FastifyRequest) => ApplicationRow;
