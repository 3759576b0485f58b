import type { LightMyRequestResponse } from 'fastify';
import type { TestApp, TestMerchant } from '../support/harness.js';

/** Cookies of a response's Set-Cookie headers, as `name=value` pairs. */
export function cookiesOf(res: LightMyRequestResponse): Record<string, string> {
  const out: Record<string, string> = {};
  for (const c of res.cookies as { name: string; value: string }[]) out[c.name] = c.value;
  return out;
}

export function cookieHeader(jar: Record<string, string>): string {
  return Object.entries(jar).map(([k, v]) => `${k}=${v}`).join('; ');
}

/** The value of the hidden _csrf field of a page. */
export function csrfOf(body: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(body);
  if (!m) throw new Error('no _csrf field on the page');
  return m[1];
}

/**
 * A dashboard browser without a browser (inject): a cookie jar, form posts with the page's
 * CSRF token. The browser tests (chromium) cover the same flows with real clicks.
 */
export class DashboardClient {
  jar: Record<string, string> = {};
  csrf = '';
  constructor(private readonly t: TestApp) {}

  async get(url: string): Promise<LightMyRequestResponse> {
    const res = await this.t.inject({ method: 'GET', url, headers: { cookie: cookieHeader(this.jar) } });
    Object.assign(this.jar, cookiesOf(res));
    if (res.statusCode === 200 && res.body.includes('name="_csrf"')) this.csrf = csrfOf(res.body);
    return res;
  }

  async post(url: string, fields: Record<string, string>, options: { csrf?: string | null } = {}): Promise<LightMyRequestResponse> {
    const form = new URLSearchParams(fields);
    const csrf = options.csrf === undefined ? this.csrf : options.csrf;
    if (csrf !== null) form.set('_csrf', csrf);
    const res = await this.t.inject({
      method: 'POST',
      url,
      headers: { cookie: cookieHeader(this.jar), 'content-type': 'application/x-www-form-urlencoded' },
      payload: form.toString(),
    });
    Object.assign(this.jar, cookiesOf(res));
    return res;
  }

  /** Logs in as the merchant (its API credential); answers the redirect. */
  async loginMerchant(m: Pick<TestMerchant, 'userName' | 'password'>): Promise<LightMyRequestResponse> {
    await this.get('/dashboard/login');
    return this.post('/dashboard/login', { userName: m.userName, password: m.password });
  }

  async loginOperator(): Promise<LightMyRequestResponse> {
    await this.get('/dashboard/login/operator');
    return this.post('/dashboard/login/operator', { adminKey: this.t.ctx.adminApiKey });
  }
}
