import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';

/** The Fastify instance every feature registers its routes on (built by createHttpApp in app.ts). */
export type HttpApp = FastifyInstance<Server, IncomingMessage, ServerResponse, Logger, TypeBoxTypeProvider>;

declare module 'fastify' {
  interface FastifyRequest {
    /** The API version the caller asked for through its Accept header. */
    apiVersion: number;
    /** The service's logger for this request (with its id), whatever the log level; `log` is silent below info. */
    readonly serviceLog: Logger;
  }
  interface FastifyContextConfig {
    /** Who may call the route: a signed-in user (default), anyone, anyone who may be signed in (`request.caller` set when so), or a refresh token's holder. */
    auth?: 'user' | 'none' | 'optional' | 'refresh';
    /** The route answers text/event-stream instead of JSON. */
    eventStream?: boolean;
    /** The route serves files (e.g. /cdn logos), whatever the Accept header says: no 406. */
    anyAccept?: boolean;
  }
}

