import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { errors } from '../errors/catalogue.js';
import { errorResponses, NoContent } from '../http/schemas.js';
import { LOGO_CONTENT_TYPES, mediaTypeOf, parseObjectKey, type ObjectKey } from './content-types.js';
import type { EmbeddedLogoStorage } from './storage.js';
import { checkUpload } from './upload-signature.js';

/** The embedded CDN's paths: their URLs carry their own permission, so any web origin may call them (CORS `*`, no credentials). */
export const isCdnPath = (path: string): boolean => path.startsWith('/cdn/');

/** A logo may be at most 1 MiB. */
export const MAX_LOGO_BYTES = 1024 * 1024;

const UploadQuery = Type.Object({
  contentType: Type.String({ maxLength: 255 }),
  expires: Type.String({ pattern: '^[0-9]{1,12}$' }),
  signature: Type.String({ maxLength: 128 }),
});
const Wildcard = Type.Object({ '*': Type.String({ maxLength: 512 }) });

/** Whether the application an object belongs to still exists (the applications feature answers). */
export type ApplicationExists = (applicationId: string) => Promise<boolean>;

/**
 * The embedded CDN: `PUT /cdn/{key}` takes an upload signed by POST …/logo (15 minutes, one
 * object, one content type), `GET /cdn/{key}` serves it without authentication.
 */
export function cdnRoutes(ctx: AppContext, store: EmbeddedLogoStorage, applicationExists: ApplicationExists): FastifyPluginAsyncTypebox {
  return async (app) => {
    // Raw bytes of any type: the announced type is checked against the signature, not by a parser.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

    const authorise = async (request: FastifyRequest): Promise<ObjectKey> => {
      const object = parseObjectKey((request.params as { '*': string })['*']);
      const query = request.query as Record<string, string | undefined>;
      if (!object || !query.contentType || !query.expires || !query.signature) throw errors.forbidden('upload URL is not valid');
      if (mediaTypeOf(request.headers['content-type']) !== query.contentType || query.contentType !== object.contentType) {
        throw errors.forbidden('Content-Type must be the one announced when the upload URL was made');
      }
      const grant = { applicationId: object.applicationId, key: object.key, contentType: object.contentType, expires: Number(query.expires) };
      const check = checkUpload(await store.uploadSecret(), grant, query.signature, ctx.now());
      if (check === 'expired') throw errors.forbidden('upload URL has expired');
      if (check !== 'ok') throw errors.forbidden('upload URL signature is not valid');
      if (!(await applicationExists(object.applicationId))) throw errors.forbidden('the application no longer exists');
      return object;
    };

    const granted = new WeakMap<FastifyRequest, ObjectKey>();
    app.put('/cdn/*', {
      config: { auth: 'none', anyAccept: true },
      bodyLimit: MAX_LOGO_BYTES,
      // Checked before the body is read, so a refused upload costs nothing.
      onRequest: async (request) => void granted.set(request, await authorise(request)),
      schema: { tags: ['cdn'], summary: 'Upload a logo to a signed upload URL', security: [], params: Wildcard, querystring: UploadQuery, response: { 204: NoContent, ...errorResponses(400, 403) } },
      handler: async (request, reply) => {
        const body = request.body;
        if (!Buffer.isBuffer(body) || body.length === 0) throw errors.badRequest('the upload body is empty');
        await store.files.put(granted.get(request)!.key, body);
        return reply.code(204).send(null);
      },
    });

    app.get('/cdn/*', {
      config: { auth: 'none', anyAccept: true },
      schema: {
        tags: ['cdn'],
        summary: 'A stored logo',
        security: [],
        params: Wildcard,
        response: {
          200: { description: "the logo's bytes, of the type it was uploaded as", content: Object.fromEntries(Object.keys(LOGO_CONTENT_TYPES).map((type) => [type, { schema: Type.Unsafe<Buffer>(Type.String({ format: 'binary' })) }])) },
          ...errorResponses(404),
        },
      },
      handler: async (request, reply) => {
        const object = parseObjectKey(request.params['*']);
        const bytes = object ? await store.files.get(object.key) : null;
        if (!object || !bytes) throw errors.notFound('file');
        return reply
          .type(object.contentType)
          .header('cache-control', 'public, max-age=31536000, immutable')
          .header('x-content-type-options', 'nosniff')
          // An SVG is a document: it must not run scripts when opened directly.
          .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox")
          .send(bytes);
      },
    });
  };
}
