import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../errors/catalogue.js';
import { handleError } from './error-handler.js';
import type { HttpApp } from './http-app.js';
import { negotiateRequest } from './route-negotiation.js';

// OPTIONS is left out: CORS answers an allowed origin's preflight; any other OPTIONS is not found.
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** The methods some route answers for `url`'s path (empty when the path is unknown). */
export function allowedMethods(app: HttpApp, url: string): string[] {
  const path = url.split('?')[0] ?? url;
  return METHODS.filter((method) => app.findRoute({ method, url: path }) !== null);
}

/**
 * Unknown paths answer 404; a known path with a method it does not serve answers 405 with an
 * `Allow` header (the spec's Errors table), both in the documented error format.
 */
export function notFoundHandler(app: HttpApp) {
  return (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const unacceptable = negotiateRequest(request, 'json');
    if (unacceptable) return handleError(unacceptable, request, reply);
    const allowed = request.method === 'OPTIONS' ? [] : allowedMethods(app, request.url);
    if (allowed.length === 0) return handleError(errors.notFound(), request, reply);
    reply.header('allow', allowed.join(', '));
    return handleError(errors.methodNotAllowed(), request, reply);
  };
}
