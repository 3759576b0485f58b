import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardServices } from '../../services.js';
import { DomainError } from '../../../../domain/errors.js';
import type { SubscriptionBody } from '../../../webhooks/schemas.js';
import { formSchema } from '../../forms.js';
import { pageOf, requireMerchant, requireScope, seeOther, sendPage, type DashboardDeps } from '../../http.js';
import { langOf } from '../../i18n.js';
import { decodeCursor, encodeCursor, withAfter } from '../../lists.js';
import { renderWebhooks, type HookSubscription, type LogFilters } from './render.js';
import { CHANNELS, DELIVERY_STATUSES, hookWords, LOG_TYPES } from './words.js';

const PAGE_SIZE = 25;
const DATE = '^\\d{4}-\\d{2}-\\d{2}$';
const oneOf = (values: readonly string[]) => Type.Optional(Type.Union([Type.Literal(''), ...values.map((v) => Type.Literal(v))]));
const LogQuery = Type.Object({
  status: oneOf(DELIVERY_STATUSES),
  channel: oneOf(CHANNELS),
  type: oneOf(LOG_TYPES),
  startDate: Type.Optional(Type.Union([Type.Literal(''), Type.String({ pattern: DATE })])),
  endDate: Type.Optional(Type.Union([Type.Literal(''), Type.String({ pattern: DATE })])),
  after: Type.Optional(Type.String({ maxLength: 400 })),
  done: Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$' })),
  removed: Type.Optional(Type.Literal('1')),
});
type LogQuery = Static<typeof LogQuery>;
const SubscribeForm = formSchema({
  url: Type.String({ maxLength: 500 }),
  basicUser: Type.Optional(Type.String({ maxLength: 200 })),
  basicPassword: Type.Optional(Type.String({ maxLength: 500 })),
  types: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Array(Type.String({ maxLength: 64 }), { maxItems: 64 })])),
  rotateSecret: Type.Optional(Type.Literal('true')),
});
const MovementParams = Type.Object({ movementId: Type.String({ pattern: '^[0-9]{1,15}$' }) });

/**
 * /dashboard/webhooks: the account's subscription (WebhookService.subscribe/remove, as the
 * integration API's routes), the delivery log with its filters (WebhookService.deliveryLog)
 * and redelivery (WebhookService.redeliver). The integration scope is required, as there.
 */
export function webhooksPage(scope: FastifyInstance, ctx: DashboardServices, deps: DashboardDeps): void {
  async function subscriptionOf(accountNumber: number): Promise<HookSubscription | null> {
    try {
      return await ctx.webhooks.get(accountNumber);
    } catch (error) {
      if (error instanceof DomainError && error.kind === 'not_found') return null;
      throw error;
    }
  }

  async function show(request: FastifyRequest, reply: FastifyReply, status: number, extra: { query?: LogQuery; notice?: string; errors?: string[]; secret?: string } = {}) {
    const principal = requireMerchant(request);
    const q = extra.query ?? {};
    const filters: LogFilters = { status: q.status || undefined, channel: q.channel || undefined, type: q.type || undefined, startDate: q.startDate || undefined, endDate: q.endDate || undefined };
    const after = decodeCursor<{ createdAt: string; id: number }>(q.after, { createdAt: 'string', id: 'number' });
    const subscription = await subscriptionOf(principal.accountNumber);
    let log: Awaited<ReturnType<typeof ctx.webhooks.deliveryLog>> = { items: [] };
    const errors = [...(extra.errors ?? [])];
    try {
      log = await ctx.webhooks.deliveryLog(principal.accountNumber, filters as Parameters<typeof ctx.webhooks.deliveryLog>[1], PAGE_SIZE, after);
    } catch (error) {
      // A reversed date range: the message on the page, the log empty.
      if (!(error instanceof DomainError) || error.kind !== 'invalid') throw error;
      errors.push(...error.errors.map((e) => e.description));
      status = 400;
    }
    const nextHref = log.next ? withAfter('/dashboard/webhooks', { ...filters }, encodeCursor(log.next)) : undefined;
    const view = { subscription, deliveries: log.items, filters, nextHref, onFirst: !after, notice: extra.notice, errors, secret: extra.secret };
    return sendPage(reply, status, renderWebhooks(pageOf(request, deps), view));
  }

  scope.get('/webhooks', { schema: { hide: true, querystring: LogQuery } }, async (request, reply) => {
    requireScope(requireMerchant(request), 'integration');
    const query = request.query as LogQuery;
    const t = hookWords(langOf(request));
    const notice = query.done ? t.redelivered.replace('{id}', query.done) : query.removed ? t.removed : undefined;
    return show(request, reply, 200, { query, notice });
  });

  // Answered with the page itself (not a redirect): the signing secret is shown in this answer only.
  scope.post('/webhooks/subscription', { schema: { hide: true, body: SubscribeForm } }, async (request, reply) => {
    const principal = requireMerchant(request);
    requireScope(principal, 'integration');
    const form = request.body as Static<typeof SubscribeForm>;
    const types = form.types === undefined ? undefined : Array.isArray(form.types) ? form.types : [form.types];
    const body: SubscriptionBody = { url: form.url.trim() };
    if (form.basicUser) body.basicAuth = Buffer.from(`${form.basicUser}:${form.basicPassword ?? ''}`, 'utf8').toString('base64');
    if (types?.length) body.types = types;
    if (form.rotateSecret) body.rotateSecret = true;
    const t = hookWords(langOf(request));
    try {
      const saved = await ctx.webhooks.subscribe(principal.merchantId, principal.accountNumber, body);
      return show(request, reply, 200, { notice: t.saved.replace('{url}', saved.url), secret: saved.secret });
    } catch (error) {
      if (!(error instanceof DomainError) || error.kind !== 'invalid') throw error;
      return show(request, reply, 400, { errors: error.errors.map((e) => e.description) });
    }
  });

  scope.post('/webhooks/remove', { schema: { hide: true } }, async (request, reply) => {
    const principal = requireMerchant(request);
    requireScope(principal, 'integration');
    await ctx.webhooks.remove(principal.accountNumber);
    return seeOther(reply, '/dashboard/webhooks?removed=1');
  });

  scope.post('/webhooks/deliveries/:movementId/redeliver', { schema: { hide: true, params: MovementParams } }, async (request, reply) => {
    const principal = requireMerchant(request);
    requireScope(principal, 'integration');
    const movementId = Number((request.params as { movementId: string }).movementId);
    try {
      await ctx.webhooks.redeliver(principal.accountNumber, movementId);
    } catch (error) {
      // In flight, or no URL registered: a message on the log page, not an error page.
      if (!(error instanceof DomainError) || error.kind !== 'conflict') throw error;
      return show(request, reply, 409, { errors: error.errors.map((e) => e.description) });
    }
    return seeOther(reply, `/dashboard/webhooks?done=${movementId}`);
  });
}
