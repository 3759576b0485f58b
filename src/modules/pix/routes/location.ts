import type { FastifyError } from 'fastify';
import type { PixRouteDeps } from '../route-deps.js';
import { errorResponses } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { invalidLocationRequest, LocationProblem, locationNotFound } from '../location-query.js';
import { PixJwks, PixLocationParams, PixLocationProblem, PixLocationQuery, PixRecurrenceLocationParams } from '../schemas.js';

/** Where the sandbox PSP publishes its signing keys (the `jku` of every location payload). */
export const JWKS_PATH = '/pix/jwks';

/**
 * PIX_PROVIDER=sandbox: the gateway plays the PSP for bank apps. `GET /pix/v2/{txid}` is the
 * location every dynamic code carries (`<PUBLIC_URL host>/pix/v2/<txid>`); it answers the
 * charge payload as a JWS (`application/jose`), verifiable with the keys at `/pix/jwks`. No
 * authentication: whoever holds the code may read it, as at a real PSP. Its 400 and 404 are the
 * API Pix's `Problema` (`application/problem+json`), what a payer's bank expects of a PSP; other
 * statuses keep the error array.
 */
export function locationRoutes(app: App, ctx: PixRouteDeps): void {
  const jku = `${ctx.config.publicUrl}${JWKS_PATH}`;
  app.get('/pix/v2/:txid', {
    schema: {
      tags: ['Pix'],
      operationId: 'getPixLocation',
      security: [],
      summary: 'Pix location payload (sandbox PSP)',
      description:
        "The payload of a dynamic Pix code, a compact JWS (PS256) whose header names its key (`kid`) and key set (`jku`). A charge with a due date (API Pix `cobv`) is priced for `DPP`, the payer's intended date (default today, a Brasília date): discount, or fine and interest, as on that day; `recebedor` carries the merchant's address (or the sandbox default). Errors are the API Pix's `Problema` (`application/problem+json`): 400 `CobPayloadOperacaoInvalida` for a malformed `DPP` or `codMun`, a `DPP` before today or after the last payable day; 404 `CobPayloadNaoEncontrado` for a location with no charge.",
      params: PixLocationParams,
      querystring: PixLocationQuery,
      response: {
        200: { description: 'Compact JWS', content: { 'application/jose': { schema: { type: 'string' } } } },
        400: { description: 'CobPayloadOperacaoInvalida', content: { 'application/problem+json': { schema: PixLocationProblem } } },
        404: { description: 'CobPayloadNaoEncontrado', content: { 'application/problem+json': { schema: PixLocationProblem } } },
      },
    },
    errorHandler: (error: FastifyError, _request, reply) => {
      // A txid no charge can have is a location that shows none; a query the schema refuses is an invalid request.
      const problem =
        error instanceof LocationProblem ? error
        : error.validation && error.validationContext === 'params' ? locationNotFound()
        : error.validation ? invalidLocationRequest(error.validation.map((v) => ({ razao: `${v.instancePath.slice(1) || 'query'} ${v.message ?? 'is invalid'}.`, propriedade: v.instancePath.slice(1) || 'query' })))
        : null;
      if (!problem) throw error; // the app's handler writes the array
      return reply.code(problem.status).type('application/problem+json').send(problem.body());
    },
    handler: async (request, reply) => {
      const jws = await ctx.pix.signedLocationPayload(request.params.txid, request.query, ctx.pixLocationSigner, jku);
      return reply.type('application/jose').header('cache-control', 'no-store').send(jws);
    },
  });
  app.get('/pix/v2/rec/:id', {
    schema: {
      tags: ['Pix'],
      operationId: 'getPixRecurrenceLocation',
      security: [],
      summary: 'Pix Automático recurrence payload at its locrec (sandbox PSP)',
      description: "The recurrence payload (API Pix RecPayload) behind ID 80 of a Pix subscription's journey-3 composite code, a compact JWS (PS256) as at a charge's location; the first charge's payload is at its own location (ID 26, `GET /pix/v2/{txid}`).",
      params: PixRecurrenceLocationParams,
      response: { 200: { description: 'Compact JWS', content: { 'application/jose': { schema: { type: 'string' } } } }, ...errorResponses(400, 404) },
    },
    handler: async (request, reply) => {
      const jws = await ctx.pix.recurrences.signedPayload(request.params.id, ctx.pixLocationSigner, jku);
      return reply.type('application/jose').header('cache-control', 'no-store').send(jws);
    },
  });
  app.get(JWKS_PATH, {
    schema: { tags: ['Pix'], operationId: 'getPixJwks', security: [], description: 'The public keys (JWKS) that verify the signed Pix location payloads the sandbox PSP serves.', summary: 'Signing keys of the sandbox Pix PSP (JWKS)', response: { 200: PixJwks } },
    handler: async () => ctx.pixLocationSigner.jwks(),
  });
}
