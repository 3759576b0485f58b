import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { PixRouteDeps } from '../route-deps.js';
import { forbidden, unauthorized } from '../../../http/errors.js';
import { errorResponses } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { toReceipt } from '../../../pix-provider/bcb/protocol.js';
import { ipAllowed } from '../../../security/ip-allowlist.js';
import { PixWebhookAnswer, PixWebhookBody } from '../schemas.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** The shared secret, as `Authorization: Bearer <secret>` or as the password of Basic (a webhook URL with user:secret@). */
function presentedSecret(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization ?? '';
  if (/^Bearer /i.test(header)) return header.slice(7).trim();
  if (/^Basic /i.test(header)) {
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon >= 0 ? decoded.slice(colon + 1) : undefined;
  }
  return undefined;
}

/**
 * PIX_PROVIDER=bcb: the PSP's payment notifications, `POST {PIX_WEBHOOK_PATH}` (and
 * `{PIX_WEBHOOK_PATH}/pix`, since the API Pix appends `/pix` to the registered URL). The mutual
 * TLS usually ends at the operator's proxy, so the call is checked here twice: its address
 * (PIX_WEBHOOK_ALLOWED_IPS, behind TRUST_PROXY) and the shared secret (PIX_WEBHOOK_SECRET,
 * compared in constant time). Each payment is applied once by its endToEndId, so the PSP's
 * retries are harmless; a 2xx tells the PSP to stop retrying.
 */
export function pspWebhookRoutes(app: App, ctx: PixRouteDeps): void {
  const { webhookPath } = ctx.config.pix;
  const guard = pspWebhookGuard(ctx);
  if (!webhookPath || !guard) return;
  for (const [url, operationId] of [
    [webhookPath, 'receivePspPixPayments'],
    [`${webhookPath}/pix`, 'receivePspPixPaymentsAppended'],
  ] as const) {
    app.post(url, {
      schema: {
        tags: ['Pix'],
        operationId,
        summary: 'Pix payments and returns from the PSP (API Pix webhook)',
        description: 'Called by the Pix PSP, not by integrators: the payments it received, each applied once by endToEndId, and the final status of refunds (devolucoes), among them the MED returns the PSP made itself (natureza MED_FRAUDE or MED_OPERACIONAL), each reflected once by its rtrId. Authenticated by PIX_WEBHOOK_ALLOWED_IPS and PIX_WEBHOOK_SECRET.',
        body: PixWebhookBody,
        response: { 200: PixWebhookAnswer, ...errorResponses(400, 401, 403) },
      },
      onRequest: guard,
      handler: async (request) => {
        const receipts = request.body.pix.map(toReceipt);
        const summary = await ctx.pix.receive(receipts, 'webhook');
        // Money in that paid nothing (another amount, unknown txid, paid twice, a slip that refused it): the operator refunds it.
        if (summary.unmatched > 0) request.log.warn({ unmatched: summary.unmatched }, 'Pix payments that paid no charge (recorded in pix_payments)');
        // The webhook of returns: the same call, its items carrying the devoluções that reached a final status (ours, and the PSP's MED returns).
        const returns = await ctx.pix.returnsReported(receipts);
        return { ...summary, returns };
      },
    });
  }
}

/**
 * The checks of every PSP webhook call (payments, recurrences, recurring charges), run before the
 * body is read: an address outside the list or a wrong secret learns nothing of the rest. Null
 * when no webhook is configured.
 */
export function pspWebhookGuard(ctx: PixRouteDeps): ((request: FastifyRequest) => Promise<void>) | null {
  const { webhookPath, webhookSecret, webhookAllowedIps } = ctx.config.pix;
  if (!webhookPath || !webhookSecret) return null;
  const expected = digest(webhookSecret);
  return async (request) => {
    if (webhookAllowedIps.length > 0 && !ipAllowed(request.ip, webhookAllowedIps)) throw forbidden('Requests from this address are not allowed.', 'ip_not_allowed');
    const secret = presentedSecret(request);
    if (secret === undefined || !timingSafeEqual(digest(secret), expected)) throw unauthorized('Missing or wrong webhook secret.');
  };
}
