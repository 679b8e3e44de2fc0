import type { FastifyReply } from 'fastify';

/**
 * The headers of a page a browser renders on the service's origin (the console, the API docs):
 * both share the origin where the console keeps its tokens, so each gets a policy that runs only
 * its own scripts and may not be framed (issue 27 point 10).
 */
export function securityHeaders(reply: FastifyReply, csp: string): FastifyReply {
  return reply
    .header('content-security-policy', csp)
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('vary', 'accept-encoding');
}

/**
 * Swagger UI (/docs): its own scripts and styles only, no framing; "Try it out" may reach the
 * service at its base URL, which need not be the origin the page was opened by.
 */
export function docsCsp(baseUrl: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "script-src-attr 'none'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self' ${new URL(baseUrl).origin}`,
    "font-src 'self' data:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}
