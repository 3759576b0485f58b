import { html } from '../../../http/html.js';
import { common } from '../i18n.js';
import { layout, type PageContext } from '../layout.js';

export interface LoginView {
  kind: 'merchant' | 'operator';
  csrf: string;
  error?: string;
  /** Where to go after the login ('' for the role's home). */
  next: string;
}

export function loginPage(page: PageContext, view: LoginView): string {
  const t = common(page.lang);
  const fields =
    view.kind === 'merchant'
      ? html`<label for="userName">${t.userName}</label>
<input id="userName" name="userName" autocomplete="username" required autofocus>
<label for="password">${t.password}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>`
      : html`<label for="adminKey">${t.adminKey}</label>
<input id="adminKey" name="adminKey" type="password" autocomplete="current-password" required autofocus>`;
  const action = view.kind === 'merchant' ? '/dashboard/login' : '/dashboard/login/operator';
  const other = view.kind === 'merchant' ? html`<a href="/dashboard/login/operator">${t.operatorLogin}</a>` : html`<a href="/dashboard/login">${t.merchantLogin}</a>`;
  return layout(
    page,
    view.kind === 'merchant' ? t.loginTitle : t.operatorLogin,
    html`${view.error ? html`<p class="alert" role="alert">${view.error}</p>` : ''}
<form method="post" action="${action}" class="card narrow">
<input type="hidden" name="_csrf" value="${view.csrf}">
${view.next ? html`<input type="hidden" name="next" value="${view.next}">` : ''}
${fields}
<button type="submit">${t.signIn}</button>
</form>
<p>${other}</p>`,
  );
}
