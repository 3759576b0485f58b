import type { FastifyReply } from 'fastify';

/**
 * Sends a JSON text the database already wrote (the listings, see records.ts): a string with a
 * JSON content type goes out as it is, past the schema serializer; the route's response schema
 * still documents it.
 */
export function sendJson(reply: FastifyReply, json: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(json);
}
