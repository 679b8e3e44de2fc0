import type { FastifyContextConfig, FastifyRequest, RouteOptions } from 'fastify';
import { errors } from '../errors/catalogue.js';
import { negotiate } from './negotiation.js';

/** The API documentation pages are HTML for browsers; the JSON-only 406 rule does not apply to them. */
export const DOCS_PREFIX = '/docs';
function isHtmlPage(routeUrl: string | undefined): boolean {
  return routeUrl === DOCS_PREFIX || (routeUrl?.startsWith(`${DOCS_PREFIX}/`) ?? false);
}

/** What a route's Accept header must admit: JSON (the API), JSON or an event stream, or anything (pages, files). */
export type AcceptRule = 'json' | 'json-or-stream' | 'any';

export function acceptRuleOf(route: Pick<RouteOptions, 'url' | 'config'>): AcceptRule {
  const config = route.config as FastifyContextConfig | undefined;
  if (isHtmlPage(route.url) || config?.anyAccept === true) return 'any';
  return config?.eventStream === true ? 'json-or-stream' : 'json';
}

/** Sets the API version the Accept header asks for; a 406 when it admits nothing the route answers. */
export function negotiateRequest(request: FastifyRequest, rule: AcceptRule): Error | undefined {
  const negotiated = negotiate(request.headers.accept);
  request.apiVersion = negotiated.version;
  if (rule === 'any' || negotiated.acceptsJson || (rule === 'json-or-stream' && negotiated.acceptsEventStream)) return undefined;
  return errors.notAcceptable();
}

