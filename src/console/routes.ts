import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { securityHeaders } from '../http/security-headers.js';

/**
 * The web console (console/, built by `vite build` into dist/console-app during `npm ci`), served
 * at /console: hashed assets cached for good, every other path answered with index.html (the app
 * routes in the browser), precompressed .br/.gz chosen by Accept-Encoding.
 */

/** Two folders up from this file is the repository, whether it runs as src/console/*.ts or dist/console/*.js. */
export const CONSOLE_ROOT = fileURLToPath(new URL('../../dist/console-app/', import.meta.url));

/** The origins the console may reach besides its own: logo uploads and logo images (src/cdn/origins.ts). */
export interface ConsoleOrigins {
  /** Where the browser PUTs a logo (`connect-src`). */
  upload: string[];
  /** Where logos are served from (`img-src`). */
  images: string[];
}

/**
 * Same origin, plus the logo store's origins: the upload URL lies on BASE_URL (which need not be
 * the name the console was opened by) or on S3, and logos on CDN_URL or S3_PUBLIC_URL, which may
 * be other hosts, over http too. Images also from any https host, for logos stored before a change
 * of CDN.
 */
export function consoleCsp(origins: ConsoleOrigins = { upload: [], images: [] }): string {
  const sources = (list: string[]) => list.map((origin) => ` ${origin}`).join('');
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self' data: blob: https:${sources(origins.images)}`,
    `connect-src 'self'${sources(origins.upload)}`,
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Console not built</title></head>
<body style="font-family:sans-serif;padding:24px"><h1>The console is not built</h1>
<p>Run <code>npm run build</code> (it runs during <code>npm ci</code> too), then reload this page.</p></body></html>`;

/** Every file under `root` as a path relative to it, with forward slashes. */
function listFiles(root: string): Set<string> {
  const files = new Set<string>();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (!name.endsWith('.br') && !name.endsWith('.gz')) files.add(relative(root, path).split(sep).join('/'));
    }
  };
  walk(root);
  return files;
}

export function consoleRoutes(options: { root?: string; origins?: ConsoleOrigins } = {}): FastifyPluginAsync {
  const root = options.root ?? CONSOLE_ROOT;
  const csp = consoleCsp(options.origins);
  return async (app) => {
    const config = { auth: 'none' as const, anyAccept: true };
    const schema = { hide: true };
    if (!existsSync(join(root, 'index.html'))) {
      // A page for a person at a browser, not an API error body.
      // eslint-disable-next-line no-restricted-syntax -- HTML for a browser
      const notBuilt = async (_request: unknown, reply: FastifyReply) => securityHeaders(reply, csp).code(503).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(NOT_BUILT);
      app.get('/console', { config, schema }, notBuilt);
      app.get('/console/*', { config, schema }, notBuilt);
      return;
    }
    const files = listFiles(root);
    await app.register(fastifyStatic, { root, serve: false, preCompressed: true, cacheControl: false, etag: true, lastModified: false });
    const index = (reply: FastifyReply) => securityHeaders(reply, csp).header('cache-control', 'no-cache').sendFile('index.html');
    app.get('/console', { config, schema }, async (_request, reply) => index(reply));
    app.get<{ Params: { '*': string } }>('/console/*', { config, schema }, async (request, reply) => {
      const path = request.params['*'];
      if (!files.has(path) || path === 'index.html') return index(reply);
      // Vite names what it emits under assets/ by content hash: such a file never changes.
      const cache = path.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'public, max-age=3600';
      return securityHeaders(reply, csp).header('cache-control', cache).sendFile(path);
    });
  };
}
