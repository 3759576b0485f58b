import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import { seeOther, sendPage, type DashboardDeps } from '../http.js';
import { merchantsPage } from '../pages/operator-merchants.js';
import { operatorPage } from './operator-forms.js';

const PAGE_SIZE = 20;

/** The create form's fields: the bounds of POST /admin/merchants' body (its route file keeps the schema inline). */
const CreateBody = Type.Object({
  _csrf: Type.Optional(Type.String({ maxLength: 200 })),
  name: Type.String({ minLength: 1, maxLength: 100 }),
  documentNumber: Type.String({ minLength: 11, maxLength: 14 }),
  legalName: Type.Optional(Type.String({ maxLength: 255 })),
  email: Type.Optional(Type.Union([Type.Literal(''), Type.String({ maxLength: 255, format: 'email' })])),
});

/** GET/POST /dashboard/operator/merchants: the list (the admin API's paging, newest first) and the create form. */
export function operatorMerchantsRoutes(scope: FastifyInstance, ctx: AppContext, deps: DashboardDeps): void {
  scope.get('/operator/merchants', { schema: { hide: true, querystring: Type.Object({ page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })) }) } }, async (request, reply) => {
    const page = operatorPage(request, deps);
    const { page: n = 1 } = request.query as { page?: number };
    // The merchants table holds the gateway's merchants (hundreds, not millions): the API's page/limit paging is fine here.
    const list = await ctx.merchants.list({ page: n, limit: PAGE_SIZE, orderBy: 'createdDate:desc' });
    return sendPage(reply, 200, merchantsPage(page, { items: list.items, page: n, pages: Math.max(1, Math.ceil(list.total / PAGE_SIZE)) }));
  });

  scope.post('/operator/merchants', { schema: { hide: true, body: CreateBody } }, async (request, reply) => {
    operatorPage(request, deps);
    const body = request.body as { name: string; documentNumber: string; legalName?: string; email?: string };
    // The same service call as POST /admin/merchants (it checks the CPF/CNPJ).
    const merchant = await ctx.merchants.create({
      name: body.name,
      documentNumber: body.documentNumber,
      legalName: body.legalName || undefined,
      email: body.email || undefined,
    });
    return seeOther(reply, `/dashboard/operator/merchants/${merchant.merchantId}?done=created`);
  });
}
