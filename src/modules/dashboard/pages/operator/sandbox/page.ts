import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { DashboardServices } from '../../../services.js';
import { invalid, notFound } from '../../../../../domain/errors.js';
import { html } from '../../../../../http/html.js';
import { MerchantIdParams } from '../../../../../http/merchant-id-params.js';
import type { Merchant } from '../../../../merchants/service.js';
import { dateTime, duration } from '../../../format.js';
import { apiBody, apiSchemaCheck, formSchema, requireValidForm, wholeNumber } from '../../../forms.js';
import { requireOperator, seeOther, sendPage, type DashboardDeps } from '../../../http.js';
import { bilingual } from '../../../i18n.js';
import { csrfField, layout, type PageContext } from '../../../layout.js';
import { TRIGGER_EVENTS, runTrigger } from './triggers.js';

const MINUTE_MS = 60_000;
/** POST /sandbox/clock/advance's limit: ten years and change per call. */
const MAX_STEP_MS = 3660 * 24 * 60 * MINUTE_MS;
/** POST /sandbox/clock/advance's bounds (its route keeps the schema inline). */
const checkAdvance = apiSchemaCheck(
  Type.Object({
    days: Type.Optional(Type.Integer({ minimum: 0, maximum: 3660 })),
    hours: Type.Optional(Type.Integer({ minimum: 0, maximum: 87840 })),
    minutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 5270400 })),
  }),
);
const ClockForm = formSchema({ days: wholeNumber('days'), hours: wholeNumber('hours'), minutes: wholeNumber('minutes') });
const ResetMerchantForm = formSchema(MerchantIdParams.properties);
const TriggerForm = formSchema({ ...MerchantIdParams.properties, event: Type.Union(TRIGGER_EVENTS.map((e) => Type.Literal(e))) });

type SandboxDone = 'advanced' | 'reset' | 'merchantReset' | 'triggered';
const text = Type.Optional(Type.String({ maxLength: 100 }));
const DoneQuery = Type.Object({
  done: Type.Optional(Type.Union(['advanced', 'reset', 'merchantReset', 'triggered'].map((d) => Type.Literal(d)))),
  now: text, jobs: text, removed: text, event: text, detail: Type.Optional(Type.String({ maxLength: 500 })),
});
const sum = (removed: Record<string, number>) => String(Object.values(removed).reduce((a, b) => a + b, 0));

/**
 * /dashboard/operator/sandbox: the virtual clock (advance; back to real time through the
 * reset, as the API), the resets and the event triggers. The sandbox's services exist in
 * sandbox mode only; in production the page and its forms are 404, like /sandbox.
 */
export function sandboxPage(scope: FastifyInstance, ctx: DashboardServices, deps: DashboardDeps): void {
  const sandbox = (request: FastifyRequest) => {
    requireOperator(request, deps);
    if (!ctx.sandboxClock || !ctx.sandboxReset) throw notFound('Page');
    return { clock: ctx.sandboxClock, reset: ctx.sandboxReset };
  };
  const back = (done: SandboxDone, values: Record<string, string>) => `/dashboard/operator/sandbox?${new URLSearchParams({ done, ...values })}`;

  scope.get('/operator/sandbox', { schema: { hide: true, querystring: DoneQuery } }, async (request, reply) => {
    sandbox(request);
    const now = ctx.clock.now();
    const real = ctx.clock.wallNow();
    const merchants = (await ctx.merchants.list({ page: 1, limit: 100, orderBy: 'name:asc' })).items;
    const { done: kind, ...values } = request.query as Static<typeof DoneQuery>;
    return sendPage(reply, 200, render(requireOperator(request, deps), {
      now: now.toISOString(),
      realNow: real.toISOString(),
      aheadText: duration(Math.round((now.getTime() - real.getTime()) / 1000)),
      merchants,
      events: TRIGGER_EVENTS,
      done: kind ? { kind: kind as SandboxDone, values: Object.fromEntries(Object.entries(values).filter((e): e is [string, string] => e[1] !== undefined)) } : undefined,
    }));
  });

  // POST /sandbox/clock/advance {days, hours, minutes}: the same bounds, the same service call.
  scope.post('/operator/sandbox/clock', { schema: { hide: true, body: ClockForm }, attachValidation: true }, async (request, reply) => {
    const { clock } = sandbox(request);
    requireValidForm(request, ClockForm);
    const step = apiBody(ClockForm, request.body as Static<typeof ClockForm>) as { days?: number; hours?: number; minutes?: number };
    checkAdvance(step);
    // The API route's own checks beyond its schema (they live in the route, not in the clock service).
    if (Object.keys(step).length === 0) throw invalid('body', 'Send either {days, hours, minutes} or {to}, not both and not neither.');
    if ((((step.days ?? 0) * 24 + (step.hours ?? 0)) * 60 + (step.minutes ?? 0)) * MINUTE_MS > MAX_STEP_MS) throw invalid('body', 'One advance moves at most 3660 days.');
    const result = await clock.advanceBy(step);
    return seeOther(reply, back('advanced', { now: result.now.toISOString(), jobs: String(result.jobsRun) }));
  });

  // POST /sandbox/reset: every merchant's business data, and the clock back to real time.
  scope.post('/operator/sandbox/reset', { schema: { hide: true, body: formSchema({}) } }, async (request, reply) => {
    const { reset } = sandbox(request);
    const result = await reset.resetAll();
    return seeOther(reply, back('reset', { removed: sum(result.removed), now: result.now }));
  });

  // POST /sandbox/merchants/{id}/reset: one merchant's data; the clock stays.
  scope.post('/operator/sandbox/reset-merchant', { schema: { hide: true, body: ResetMerchantForm } }, async (request, reply) => {
    const { reset } = sandbox(request);
    const result = await reset.resetMerchant((request.body as Static<typeof ResetMerchantForm>).merchantId);
    return seeOther(reply, back('merchantReset', { removed: sum(result.removed) }));
  });

  // `gateway trigger EVENT`, through the services its API calls reach.
  scope.post('/operator/sandbox/trigger', { schema: { hide: true, body: TriggerForm } }, async (request, reply) => {
    sandbox(request);
    const { merchantId, event } = request.body as Static<typeof TriggerForm>;
    const result = await runTrigger(ctx, merchantId, event);
    const detail = Object.entries(result).map(([k, v]) => `${k}=${String(v)}`).join('; ').slice(0, 500);
    return seeOther(reply, back('triggered', { event, detail }));
  });
}

const sandboxText = bilingual(
  {
    title: 'Sandbox',
    clock: 'Relógio',
    businessTime: 'Hora de negócio (virtual)',
    realTime: 'Hora real',
    ahead: 'Adiantado em',
    advance: 'Avançar o relógio',
    advanceHint: 'Roda, em ordem, toda tarefa que vence até a nova hora (cobranças, tentativas, vencimentos, liquidação, entregas).',
    days: 'Dias',
    hours: 'Horas',
    minutes: 'Minutos',
    advanceButton: 'Avançar',
    reset: 'Reiniciar o sandbox',
    resetAllHint: 'Volta o relógio à hora real e apaga os dados de negócio de todos os lojistas (pagamentos, cartões, recorrência, boletos, Pix, links, recebíveis, notificações, tarefas). Lojistas, credenciais, preços, antifraude, conexões e assinaturas de webhook ficam.',
    resetAll: 'Reiniciar tudo e voltar à hora real',
    resetAllConfirm: 'Apagar os dados de negócio de TODOS os lojistas e voltar o relógio à hora real?',
    resetMerchant: 'Apagar os dados de um lojista (o relógio não muda)',
    merchant: 'Lojista',
    resetMerchantButton: 'Apagar dados do lojista',
    resetMerchantConfirm: 'Apagar os dados de negócio deste lojista?',
    triggers: 'Disparar eventos',
    triggersHint: 'Os mesmos eventos do comando gateway trigger EVENT: o sandbox faz a operação de verdade, em nome do lojista, e os webhooks saem como sempre.',
    event: 'Evento',
    triggerButton: 'Disparar',
    noMerchants: 'Cadastre um lojista primeiro.',
    done_advanced: 'Relógio avançado: agora {now}; {jobs} tarefas executadas.',
    done_reset: 'Sandbox reiniciado: {removed} registros apagados; relógio em {now}.',
    done_merchantReset: 'Dados do lojista apagados: {removed} registros.',
    done_triggered: 'Evento {event} disparado: {detail}.',
  },
  {
    title: 'Sandbox',
    clock: 'Clock',
    businessTime: 'Business time (virtual)',
    realTime: 'Real time',
    ahead: 'Ahead by',
    advance: 'Advance the clock',
    advanceHint: 'Runs, in order, every job due up to the new time (charges, retries, expiries, settlement, deliveries).',
    days: 'Days',
    hours: 'Hours',
    minutes: 'Minutes',
    advanceButton: 'Advance',
    reset: 'Reset the sandbox',
    resetAllHint: "Takes the clock back to real time and removes every merchant's business data (payments, cards, recurrence, bank slips, Pix, links, receivables, notifications, jobs). Merchants, credentials, pricing, anti-fraud, connections and webhook subscriptions stay.",
    resetAll: 'Reset everything and go back to real time',
    resetAllConfirm: "Remove EVERY merchant's business data and take the clock back to real time?",
    resetMerchant: "Remove one merchant's data (the clock does not move)",
    merchant: 'Merchant',
    resetMerchantButton: "Remove the merchant's data",
    resetMerchantConfirm: "Remove this merchant's business data?",
    triggers: 'Trigger events',
    triggersHint: 'The same events as the gateway trigger EVENT command: the sandbox really does the operation, as the merchant, and the webhooks go out as always.',
    event: 'Event',
    triggerButton: 'Trigger',
    noMerchants: 'Register a merchant first.',
    done_advanced: 'Clock advanced: now {now}; {jobs} jobs run.',
    done_reset: 'Sandbox reset: {removed} rows removed; clock at {now}.',
    done_merchantReset: "Merchant's data removed: {removed} rows.",
    done_triggered: 'Event {event} triggered: {detail}.',
  },
);

interface SandboxView {
  now: string;
  realNow: string;
  aheadText: string;
  merchants: Merchant[];
  events: string[];
  done?: { kind: SandboxDone; values: Record<string, string> };
}

function notice(page: PageContext, done: SandboxView['done']) {
  if (!done) return '';
  const t = sandboxText(page.lang);
  let message: string = t[`done_${done.kind}`];
  for (const [k, v] of Object.entries(done.values)) message = message.replace(`{${k}}`, k === 'now' ? dateTime(v) : v);
  return html`<p class="notice" role="status">${message}</p>`;
}

function render(page: PageContext, view: SandboxView): string {
  const t = sandboxText(page.lang);
  const merchantSelect = (id: string) =>
    html`<label for="${id}">${t.merchant}</label><select id="${id}" name="merchantId" required>${view.merchants.map((m) => html`<option value="${m.merchantId}">${m.name} (${m.merchantId})</option>`)}</select>`;
  const noMerchants = html`<p class="muted">${t.noMerchants}</p>`;
  return layout(
    page,
    t.title,
    html`${notice(page, view.done)}
<section class="card" aria-labelledby="clock"><h2 id="clock">${t.clock}</h2>
<dl class="facts">
<dt>${t.businessTime}</dt><dd><strong><time id="business-time" datetime="${view.now}">${dateTime(view.now)}</time></strong></dd>
<dt>${t.realTime}</dt><dd>${dateTime(view.realNow)}</dd>
<dt>${t.ahead}</dt><dd>${view.aheadText}</dd>
</dl>
<form method="post" action="/dashboard/operator/sandbox/clock">
${csrfField(page)}
<h3>${t.advance}</h3>
<p class="muted">${t.advanceHint}</p>
<div class="filters">
<div><label for="days">${t.days}</label><input id="days" name="days" type="number" min="0" max="3660" inputmode="numeric"></div>
<div><label for="hours">${t.hours}</label><input id="hours" name="hours" type="number" min="0" max="87840" inputmode="numeric"></div>
<div><label for="minutes">${t.minutes}</label><input id="minutes" name="minutes" type="number" min="0" max="5270400" inputmode="numeric"></div>
</div>
<button type="submit">${t.advanceButton}</button>
</form>
</section>
<section class="card" aria-labelledby="triggers"><h2 id="triggers">${t.triggers}</h2>
<p class="muted">${t.triggersHint}</p>
${view.merchants.length
  ? html`<form method="post" action="/dashboard/operator/sandbox/trigger">
${csrfField(page)}
${merchantSelect('trigger-merchant')}
<label for="event">${t.event}</label>
<select id="event" name="event" required>${view.events.map((e) => html`<option value="${e}">${e}</option>`)}</select>
<div><button type="submit">${t.triggerButton}</button></div>
</form>`
  : noMerchants}
</section>
<section class="card" aria-labelledby="reset"><h2 id="reset">${t.reset}</h2>
<p>${t.resetAllHint}</p>
<form method="post" action="/dashboard/operator/sandbox/reset" data-confirm="${t.resetAllConfirm}">${csrfField(page)}<button type="submit" class="danger">${t.resetAll}</button></form>
<h3>${t.resetMerchant}</h3>
${view.merchants.length
  ? html`<form method="post" action="/dashboard/operator/sandbox/reset-merchant" data-confirm="${t.resetMerchantConfirm}">
${csrfField(page)}
${merchantSelect('reset-merchant')}
<button type="submit" class="danger">${t.resetMerchantButton}</button>
</form>`
  : noMerchants}
</section>`,
  );
}
