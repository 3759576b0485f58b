import { Type } from '@sinclair/typebox';
import type { FastifyError } from 'fastify';
import type { BankSlipRouteDeps } from '../route-deps.js';
import { DomainError } from '../../../domain/errors.js';
import { ApiError, httpOf } from '../../../http/errors.js';
import { integrationAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import { requireOwnAccount } from '../../../http/ownership.js';
import type { App } from '../../../http/types.js';
import { BankSlipDetail, InformationError } from '../schemas.js';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * GET {integration}/api/billissuer/information?accountNumber=&id_bill= (`id` is an alias).
 * Its 400 and 404 are the seed's `{success: false, message}` (contract section 10); 401 and
 * 403 keep the error array. Parameters are checked here rather than by the schema, so that a
 * malformed one is answered in that shape too.
 */
export function informationRoute(app: App, ctx: BankSlipRouteDeps): void {
  app.get(`${ctx.config.integrationBasePath}/api/billissuer/information`, {
    schema: {
      tags: ['Bank slips'],
      operationId: 'getBankSlip',
      description: 'One bank slip, by its id or its our-number: status, amounts, barcode, digitable line and history.',
      summary: 'One bank slip',
      security: security.integration,
      querystring: Type.Object({
        accountNumber: Type.Optional(Type.String({ description: 'Required' })),
        id_bill: Type.Optional(Type.String({ description: 'The bank slip id (required, or its alias id)' })),
        id: Type.Optional(Type.String({ description: 'Alias of id_bill' })),
      }),
      response: { 200: BankSlipDetail, 400: InformationError, 404: InformationError, ...errorResponses(401, 403) },
    },
    onRequest: integrationAuth(ctx),
    errorHandler: (error: FastifyError, _request, reply) => {
      const status = error instanceof DomainError ? httpOf(error).status : error.validation ? 400 : error.statusCode;
      if (status !== 400 && status !== 404) throw error; // the app's handler writes the array
      const message = error instanceof DomainError ? error.errors.map((e) => e.description).join(' ') : 'The query string is invalid.';
      return reply.code(status).send({ success: false, message });
    },
    handler: async (request) => {
      const principal = principalOf(request);
      requireOwnAccount(principal, request.query.accountNumber);
      const { id_bill: idBill, id } = request.query;
      if (idBill !== undefined && id !== undefined && idBill !== id) {
        throw new ApiError(400, 'query.id_bill', 'Send the bank slip id once: id_bill and id differ.');
      }
      const bill = idBill ?? id;
      if (bill === undefined || bill === '') throw new ApiError(400, 'query.id_bill', 'id_bill is required.');
      if (!GUID.test(bill)) throw new ApiError(400, 'query.id_bill', 'id_bill must be a bank slip id (a GUID).');
      return ctx.bankSlips.information(principal.merchantId, bill.toLowerCase());
    },
  });
}
