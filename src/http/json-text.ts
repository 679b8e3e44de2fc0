import type { FastifyReply } from 'fastify';

/**
 * Sends JSON text built elsewhere (by the database, src/locks/list-json.ts) as it is: Fastify
 * serialises no string sent with a JSON content type. The text must already have the shape of
 * the route's response schema, which then only documents it; a test compares the two.
 */
export function sendJsonText(reply: FastifyReply, json: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(json);
}
