import { html } from '../../../../http/html.js';
import { ALL_TYPES } from '../../../webhooks/event-types.js';
import type { Delivery } from '../../../webhooks/schemas.js';
import { dateTime } from '../../format.js';
import { common } from '../../i18n.js';
import { csrfField, layout, type PageContext } from '../../layout.js';
import { badge, flash, pager, type Tone } from '../../lists.js';
import { CHANNELS, DELIVERY_STATUSES, hookWords, LOG_TYPES } from './words.js';

/** The webhooks page: the account's subscription and its form, then the delivery log with its filters. */

const TONE: Record<string, Tone> = { Delivered: 'good', Pending: 'wait', Rejected: 'bad', Exhausted: 'bad', Canceled: 'bad' };

export interface HookSubscription {
  url: string;
  basicAuth: boolean;
  types: string[];
  updatedDate: string;
}

export interface LogFilters {
  status?: string;
  channel?: string;
  type?: string;
  startDate?: string;
  endDate?: string;
}

export interface WebhooksView {
  subscription: HookSubscription | null;
  deliveries: Delivery[];
  filters: LogFilters;
  nextHref?: string;
  onFirst: boolean;
  notice?: string;
  errors?: string[];
  /** Right after a registration only: the signing secret, shown this once. */
  secret?: string;
}

function select(id: string, label: string, values: readonly string[], current: string | undefined, all: string, labels: Record<string, string> = {}) {
  return html`<div><label for="${id}">${label}</label><select id="${id}" name="${id}"><option value="">${all}</option>${values.map((v) => html`<option value="${v}"${current === v ? html` selected` : ''}>${labels[v] ?? v}</option>`)}</select></div>`;
}

function subscriptionCard(page: PageContext, view: WebhooksView) {
  const t = hookWords(page.lang);
  const c = common(page.lang);
  const s = view.subscription;
  const checked = new Set(s?.types ?? []);
  return html`<h2>${t.subscription}</h2>
${view.secret ? html`<div class="notice" role="status"><p>${t.secret}</p><p><code>${view.secret}</code> <button type="button" class="secondary" data-copy="${view.secret}" data-copied-label="${c.copied}">${c.copy}</button></p></div>` : ''}
${s
  ? html`<div class="card"><dl class="facts"><dt>${t.url}</dt><dd><code>${s.url}</code></dd><dt>${t.types}</dt><dd>${s.types.join(', ')}</dd>
<dt>${t.basicAuth}</dt><dd>${s.basicAuth ? c.yes : c.no}</dd><dt>${t.updated}</dt><dd>${dateTime(s.updatedDate)}</dd></dl>
<form method="post" action="/dashboard/webhooks/remove" data-confirm="${t.confirmRemove}">${csrfField(page)}<button type="submit" class="danger">${t.remove}</button></form></div>`
  : html`<p class="muted">${t.none}</p>`}
<details class="card"${s ? '' : html` open`}><summary>${t.setTitle}</summary>
<form method="post" action="/dashboard/webhooks/subscription">
${csrfField(page)}
<label for="url">${t.url}</label><input id="url" name="url" type="url" required maxlength="500" value="${s?.url ?? ''}">
<label for="basicUser">${t.user}</label><input id="basicUser" name="basicUser" autocomplete="off" maxlength="200">
<label for="basicPassword">${t.password}</label><input id="basicPassword" name="basicPassword" type="password" autocomplete="new-password" maxlength="500">
<fieldset class="types"><legend>${t.types}</legend><p class="muted">${t.typesHint}</p>
${['*', ...ALL_TYPES].map((type, i) => html`<span class="check"><input type="checkbox" id="type-${i}" name="types" value="${type}"${checked.has(type) ? html` checked` : ''}><label for="type-${i}">${type}</label></span>`)}
</fieldset>
<span class="check"><input type="checkbox" id="rotateSecret" name="rotateSecret" value="true"><label for="rotateSecret">${t.rotate}</label></span>
<div><button type="submit">${t.save}</button></div>
</form></details>`;
}

function deliveryRow(page: PageContext, d: Delivery) {
  const t = hookWords(page.lang);
  return html`<tr><td class="num">${d.movementId}</td><td>${dateTime(d.createdDate)}</td><td><code>${d.type}</code></td><td>${d.channel}</td><td>${badge((t as Record<string, string>)[d.status] ?? d.status, TONE[d.status] ?? '')}</td><td>${dateTime(d.nextAttemptAt)}</td>
<td>${d.attempts.length
    ? html`<details><summary>${d.attempts.length}</summary><ol>${d.attempts.map((a) => html`<li>${t.attempt.replace('{at}', dateTime(a.at)).replace('{result}', a.statusCode !== null ? `HTTP ${a.statusCode}` : (a.error ?? '-')).replace('{ms}', String(a.durationMs)).replace('{url}', a.url)}</li>`)}</ol></details>`
    : html`<span class="muted">0</span>`}</td>
<td><form method="post" action="/dashboard/webhooks/deliveries/${d.movementId}/redeliver" class="inline">${csrfField(page)}<button type="submit" class="secondary" aria-label="${t.redeliver} ${d.movementId}">${t.redeliver}</button></form></td></tr>`;
}

/** The whole page: a notice or errors on top, the subscription, then the log. */
export function renderWebhooks(page: PageContext, view: WebhooksView): string {
  const t = hookWords(page.lang);
  const c = common(page.lang);
  const f = view.filters;
  return layout(
    page,
    t.title,
    html`${flash(view.notice, view.errors)}
${subscriptionCard(page, view)}
<h2 id="log">${t.log}</h2>
<form method="get" action="/dashboard/webhooks" class="filters card">
${select('status', c.status, DELIVERY_STATUSES, f.status, c.all, t)}
${select('channel', t.channel, CHANNELS, f.channel, c.all)}
${select('type', t.type, LOG_TYPES, f.type, c.all)}
<div><label for="startDate">${t.startDate}</label><input id="startDate" name="startDate" type="date" value="${f.startDate ?? ''}"></div>
<div><label for="endDate">${t.endDate}</label><input id="endDate" name="endDate" type="date" value="${f.endDate ?? ''}"></div>
<button type="submit">${c.filter}</button>
</form>
${view.deliveries.length
  ? html`<div class="table-wrap"><table><caption>${t.caption}</caption>
<thead><tr><th scope="col" class="num">movementId</th><th scope="col">${t.created}</th><th scope="col">${t.type}</th><th scope="col">${t.channel}</th><th scope="col">${c.status}</th><th scope="col">${t.next}</th><th scope="col">${t.attempts}</th><th scope="col">${c.actions}</th></tr></thead>
<tbody>${view.deliveries.map((d) => deliveryRow(page, d))}</tbody></table></div>`
  : html`<p>${c.noRows}</p>`}
${pager(page.lang, '/dashboard/webhooks', view.nextHref, view.onFirst)}`,
  );
}
