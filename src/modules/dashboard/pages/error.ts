import { html } from '../../../http/html.js';
import type { ErrorItem } from '../../../http/errors.js';
import { common } from '../i18n.js';
import { layout, type PageContext } from '../layout.js';

/** Any refusal or failure, as a page: the same `[{tag, description}]` the APIs answer, in a list. */
export function errorPage(page: PageContext, errors: ErrorItem[]): string {
  const t = common(page.lang);
  return layout(
    page,
    t.errorTitle,
    html`<div class="alert" role="alert"><ul>${errors.map((e) => html`<li><code>${e.tag}</code> ${e.description}</li>`)}</ul></div>
<p><a href="${page.session?.role === 'operator' ? '/dashboard/operator/merchants' : '/dashboard'}">${t.back}</a></p>`,
  );
}
