import type { HttpApp } from './http-app.js';
import { errors } from '../errors/catalogue.js';

/** `application/json` and any `application/…+json`, with or without parameters such as charset. */
const JSON_CONTENT_TYPE = /^application\/([\w.+-]+\+)?json\s*(;|$)/i;

/** True when any string (or key) inside a parsed JSON value holds a NUL, which PostgreSQL text cannot store. */
export function containsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (Array.isArray(value)) return value.some(containsNul);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).some(([key, item]) => key.includes('\u0000') || containsNul(item));
  }
  return false;
}

/**
 * Replaces Fastify's parsers. JSON: an empty body with a JSON content type counts as no body
 * (clients send `Content-Type: application/json` on body-less POSTs, compat), and strings with
 * NUL are refused here so that no feature can hand one to the database (a 500 on PostgreSQL).
 */
export function registerJsonParser(app: HttpApp): void {
  const defaultJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(JSON_CONTENT_TYPE, { parseAs: 'string' }, (request, body, done) => {
    if (typeof body === 'string' && body.trim() === '') return done(null, undefined);
    defaultJson(request, body as string, (err, parsed) => {
      if (err) return done(err);
      if (containsNul(parsed)) return done(errors.validation('strings must not contain NUL characters'));
      done(null, parsed);
    });
  });
  // Any other type: an empty body is no body (Java's HttpURLConnection labels a body-less POST
  // application/x-www-form-urlencoded); a body we cannot read is a 415.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => {
    if ((body as Buffer).length === 0) return done(null, undefined);
    done(errors.unsupportedMediaType());
  });
}
