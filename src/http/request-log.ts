import type { FastifyRequest } from 'fastify';

/** Query parameters that carry a secret (verification codes, signed upload URLs). */
const SECRET_PARAMETERS = new Set(['code', 'token', 'secret', 'signature', 'sig', 'key', 'password']);

/** `url` with the value of every secret-bearing query parameter replaced, for logging. */
export function redactUrl(url: string): string {
  const start = url.indexOf('?');
  if (start === -1) return url;
  const query = url
    .slice(start + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = (eq === -1 ? pair : pair.slice(0, eq)).toLowerCase();
      return eq !== -1 && SECRET_PARAMETERS.has(name) ? `${pair.slice(0, eq)}=[redacted]` : pair;
    })
    .join('&');
  return `${url.slice(0, start)}?${query}`;
}

/** Fastify's request log fields, with secrets in the query string redacted (a code in a log is a used code). */
export function serializeRequest(request: FastifyRequest): Record<string, unknown> {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket ? request.socket.remotePort : undefined,
  };
}
