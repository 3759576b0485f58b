import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../../context.js';
import { DomainError } from '../../../../domain/errors.js';
import { httpOf, type ErrorItem } from '../../../../http/errors.js';
import { html, type SafeHtml } from '../../../../http/html.js';
import { MAX_SUBMISSION_BYTES } from '../../../disputes/evidence.js';
import { DisputeIdParams, EvidenceBody, type DisputeResult } from '../../../disputes/schemas.js';
import { brl, date, dateTime } from '../../format.js';
import { apiSchemaCheck, formProblems, formSchema } from '../../forms.js';
import { pageOf, requireMerchant, requireScope, seeOther, sendPage, type DashboardDeps } from '../../http.js';
import { bilingual } from '../../i18n.js';
import { csrfField, layout, type PageContext } from '../../layout.js';
import { flash } from '../../lists.js';
import { disputedHref, disputeBadge, isOpen } from './status.js';

const DoneQuery = Type.Object({ done: Type.Optional(Type.String({ maxLength: 20 })) });

/**
 * The evidence form. The dashboard parses url-encoded forms only (no multipart parser), so the
 * page's script reads the chosen file in the browser and posts it as base64 in the hidden fields,
 * the API's own shape; without the script the form sends its text alone.
 */
const EvidenceForm = formSchema({
  text: Type.Optional(Type.String({ maxLength: 20_000 })),
  fileName: Type.Optional(Type.String({ maxLength: 255 })),
  contentType: Type.Optional(Type.String({ maxLength: 100 })),
  contentBase64: Type.Optional(Type.String({ maxLength: Math.ceil((MAX_SUBMISSION_BYTES * 4) / 3) + 1024 })),
});
const checkEvidenceBody = apiSchemaCheck(EvidenceBody);
// A file is bigger than the dashboard's form limit: this route alone takes the API's size, as base64
// (4/3) url-encoded (its '+', '/' and '=' three characters each, so at most 3 times that).
const EVIDENCE_FORM_LIMIT = Math.ceil((MAX_SUBMISSION_BYTES * 4) / 3) * 3 + 256 * 1024;

/** The dispute's page, with the refusal of a form posted to it when there is one. */
async function showDispute(request: FastifyRequest, reply: FastifyReply, ctx: AppContext, deps: DashboardDeps, refusal?: { status: number; errors: ErrorItem[] }) {
  const p = requireMerchant(request);
  requireScope(p, 'payments');
  // Read with the merchant's id: another merchant's dispute is a 404.
  const dispute = await ctx.disputes.get(p.merchantId, (request.params as { disputeId: string }).disputeId);
  const notice = refusal ? undefined : (request.query as { done?: string }).done;
  return sendPage(reply, refusal?.status ?? 200, render(pageOf(request, deps), { dispute, notice, errors: refusal?.errors }));
}

/** A refusal of this dispute's form is shown on its page; anything else (404, 500) is the error page. */
function refusalOf(error: unknown): { status: number; errors: ErrorItem[] } {
  if (error instanceof DomainError && (error.kind === 'invalid' || error.kind === 'conflict')) return { status: httpOf(error).status, errors: error.errors };
  throw error;
}

/** GET /dashboard/disputes/:disputeId, its evidence form and its accept button: the API's evidence and accept calls. */
export function disputeDetailPage(scope: FastifyInstance, ctx: AppContext, deps: DashboardDeps): void {
  scope.get('/disputes/:disputeId', { schema: { hide: true, params: DisputeIdParams, querystring: DoneQuery } }, async (request, reply) => showDispute(request, reply, ctx, deps));

  scope.post(
    '/disputes/:disputeId/evidence',
    { schema: { hide: true, params: DisputeIdParams, body: EvidenceForm }, attachValidation: true, bodyLimit: EVIDENCE_FORM_LIMIT },
    async (request, reply) => {
      const p = requireMerchant(request);
      requireScope(p, 'payments');
      const problems = formProblems(request, EvidenceForm);
      if (problems.length > 0) return showDispute(request, reply, ctx, deps, { status: 400, errors: problems });
      const form = request.body as Static<typeof EvidenceForm>;
      const { disputeId } = request.params as { disputeId: string };
      // The API body: a file only when one was chosen; its fields are checked by the API's schema, then its bytes by the service.
      const files = form.contentBase64 ? [{ fileName: form.fileName ?? '', contentType: form.contentType ?? '', contentBase64: form.contentBase64 }] : undefined;
      const body = { ...(form.text?.trim() ? { text: form.text } : {}), ...(files ? { files } : {}) };
      try {
        checkEvidenceBody(body);
        await ctx.disputes.addEvidence(p.merchantId, disputeId, body);
      } catch (error) {
        return showDispute(request, reply, ctx, deps, refusalOf(error));
      }
      return seeOther(reply, `/dashboard/disputes/${disputeId}?done=evidence`);
    },
  );

  scope.post('/disputes/:disputeId/accept', { schema: { hide: true, params: DisputeIdParams, body: formSchema({}) } }, async (request, reply) => {
    const p = requireMerchant(request);
    requireScope(p, 'payments');
    const { disputeId } = request.params as { disputeId: string };
    try {
      await ctx.disputes.accept(p.merchantId, disputeId);
    } catch (error) {
      return showDispute(request, reply, ctx, deps, refusalOf(error));
    }
    return seeOther(reply, `/dashboard/disputes/${disputeId}?done=accepted`);
  });
}

const strings = bilingual(
  {
    title: 'Disputa',
    back: 'Voltar às disputas',
    payment: 'Pagamento',
    status: 'Situação',
    reason: 'Motivo',
    amount: 'Valor contestado',
    respondBy: 'Prazo para evidências',
    created: 'Aberta em',
    closed: 'Encerrada em',
    medReturn: 'Devolução MED',
    awaitingReturn: 'Aguardando a devolução que o PSP faz do valor bloqueado',
    evidence: 'Evidências enviadas',
    noEvidence: 'Nenhuma evidência enviada.',
    send: 'Enviar evidências',
    text: 'Relato da venda (entrega, contato com o cliente...)',
    file: 'Arquivo (PDF, PNG ou JPEG, até 2 MB)',
    noScript: 'Sem JavaScript, só o texto é enviado.',
    submit: 'Enviar',
    accept: 'Aceitar a disputa',
    acceptHint: 'Aceitar encerra a disputa como perdida: o valor contestado é devolvido ao portador.',
    acceptConfirm: 'Aceitar esta disputa? O valor contestado será devolvido ao portador.',
    evidenceSent: 'Evidências enviadas; a disputa está em análise.',
    acceptedDone: 'Disputa aceita.',
  },
  {
    title: 'Dispute',
    back: 'Back to disputes',
    payment: 'Payment',
    status: 'Status',
    reason: 'Reason',
    amount: 'Disputed amount',
    respondBy: 'Evidence due by',
    created: 'Opened',
    closed: 'Closed',
    medReturn: 'MED return',
    awaitingReturn: 'Awaiting the return the PSP makes from the blocked amount',
    evidence: 'Evidence sent',
    noEvidence: 'No evidence sent.',
    send: 'Send evidence',
    text: 'Account of the sale (delivery, contact with the customer...)',
    file: 'File (PDF, PNG or JPEG, up to 2 MB)',
    noScript: 'Without JavaScript, only the text is sent.',
    submit: 'Send',
    accept: 'Accept the dispute',
    acceptHint: 'Accepting closes the dispute as lost: the disputed amount goes back to the cardholder.',
    acceptConfirm: 'Accept this dispute? The disputed amount goes back to the cardholder.',
    evidenceSent: 'Evidence sent; the dispute is under review.',
    acceptedDone: 'Dispute accepted.',
  },
);

interface DisputeView {
  dispute: DisputeResult;
  notice?: string;
  errors?: ErrorItem[];
}

/**
 * A MED claim decided against the merchant: the PSP returns the blocked amount itself, and the
 * claim closes when that return is reported. Until then it reads as awaiting it.
 */
function medReturn(t: ReturnType<typeof strings>, d: DisputeResult): SafeHtml | '' {
  if (d.type !== 'pix_med') return '';
  if (d.refundId) return html`<dt>${t.medReturn}</dt><dd class="mono" id="med-return">${d.refundId}</dd>`;
  if (d.closedAt === null && (d.status === 'Lost' || d.status === 'Accepted')) return html`<dt>${t.medReturn}</dt><dd id="med-return">${t.awaitingReturn}</dd>`;
  return '';
}

function render(page: PageContext, view: DisputeView): string {
  const t = strings(page.lang);
  const d = view.dispute;
  const notice = view.notice === 'evidence' ? t.evidenceSent : view.notice === 'accepted' ? t.acceptedDone : undefined;
  const facts = html`<section class="card" aria-labelledby="facts-title"><h2 id="facts-title">${t.title}</h2><dl class="facts" id="facts">
<dt>disputeId</dt><dd class="mono">${d.disputeId}</dd>
<dt>${t.status}</dt><dd id="dispute-status">${disputeBadge(page.lang, d.status)}</dd>
<dt>${t.payment}</dt><dd><a href="${disputedHref(d).href}" class="mono">${disputedHref(d).id}</a></dd>
<dt>${t.reason}</dt><dd>${d.reasonCode} · ${d.reasonMessage}</dd>
<dt>${t.amount}</dt><dd>${brl(BigInt(d.amount))}</dd>
<dt>${t.respondBy}</dt><dd>${date(d.respondBy)}</dd>
<dt>${t.created}</dt><dd>${dateTime(d.createdAt)}</dd>
${d.closedAt ? html`<dt>${t.closed}</dt><dd>${dateTime(d.closedAt)}</dd>` : ''}
${medReturn(t, d)}
</dl></section>`;
  const evidence = html`<section class="card" aria-labelledby="evidence-title"><h2 id="evidence-title">${t.evidence}</h2>
${d.evidence.length === 0
  ? html`<p class="muted">${t.noEvidence}</p>`
  : html`<ul id="evidence">${d.evidence.map((e) => html`<li><time datetime="${e.createdAt}">${dateTime(e.createdAt)}</time> ${e.text ?? ''}${e.files.map((f) => html` <span class="mono">${f.fileName}</span> (${f.contentType}, ${f.size} B)`)}</li>`)}</ul>`}
</section>`;
  const actions = isOpen(d.status)
    ? html`<section class="card" aria-labelledby="send-title"><h2 id="send-title">${t.send}</h2>
<form method="post" action="/dashboard/disputes/${d.disputeId}/evidence" data-evidence-form>${csrfField(page)}
<label for="evidence-text">${t.text}</label><textarea id="evidence-text" name="text" rows="5" maxlength="20000"></textarea>
<label for="evidence-file">${t.file}</label><input id="evidence-file" type="file" accept="application/pdf,image/png,image/jpeg" data-evidence-file>
<input type="hidden" name="fileName"><input type="hidden" name="contentType"><input type="hidden" name="contentBase64">
<noscript><p class="muted">${t.noScript}</p></noscript>
<button type="submit">${t.submit}</button></form>
<form method="post" action="/dashboard/disputes/${d.disputeId}/accept" data-confirm="${t.acceptConfirm}">${csrfField(page)}<p class="muted">${t.acceptHint}</p><button type="submit" class="danger">${t.accept}</button></form>
</section>`
    : '';
  return layout(
    page,
    `${t.title} ${d.reasonCode}`,
    html`${flash(notice, view.errors?.map((e) => `${e.tag}: ${e.description}`))}
<p><a href="/dashboard/disputes">${t.back}</a></p>
${facts}${actions}${evidence}`,
  );
}
