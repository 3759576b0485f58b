import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { Clock } from '../../clock.js';
import type { PixConfig } from '../config.js';
import { readJsonAnswer, type ServiceAnswer } from '../../outbound/json-answer.js';
import { PixProviderUnavailable } from '../types.js';

/** The PSP's answer as read by readJsonAnswer. */
export type PspAnswer = ServiceAnswer;

/** An answer bigger than this is no API Pix answer (a `GET /pix` page of 1,000 items is far smaller). */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

/**
 * JSON over HTTPS to the PSP with the mutual-TLS client certificate, and the OAuth2 client
 * credentials flow (RFC 6749 section 4.4) in front of every call: the token is kept until a
 * minute before it expires (wall clock) and fetched again once after a 401. Errors carry the
 * method and path only, never a header, the token or the client secret.
 */
export class PspHttp {
  private readonly agent: https.Agent;
  private readonly plainAgent = new http.Agent({ keepAlive: true });
  private token?: { value: string; until: number };

  constructor(
    private readonly config: PixConfig,
    private readonly clock: Clock,
  ) {
    const read = (file: string | undefined) => (file ? readFileSync(file) : undefined);
    this.agent = new https.Agent({ keepAlive: true, cert: read(config.certFile), key: read(config.keyFile), ca: read(config.caFile) });
  }

  async call(method: 'GET' | 'PUT' | 'POST' | 'PATCH', path: string, body?: unknown): Promise<PspAnswer> {
    const url = new URL(`${this.config.apiUrl}${path}`);
    let answer = await this.send(method, url, { authorization: `Bearer ${await this.accessToken()}` }, body === undefined ? undefined : JSON.stringify(body), 'application/json');
    if (answer.status === 401) {
      // The PSP may revoke a token before its expiry: one fresh token, one retry.
      this.token = undefined;
      answer = await this.send(method, url, { authorization: `Bearer ${await this.accessToken()}` }, body === undefined ? undefined : JSON.stringify(body), 'application/json');
    }
    return answer;
  }

  private async accessToken(): Promise<string> {
    const now = this.clock.wallNow().getTime();
    if (this.token && this.token.until > now) return this.token.value;
    const basic = Buffer.from(`${formEncoded(this.config.clientId ?? '')}:${formEncoded(this.config.clientSecret ?? '')}`).toString('base64');
    const answer = await this.send('POST', new URL(this.config.tokenUrl as string), { authorization: `Basic ${basic}` }, 'grant_type=client_credentials', 'application/x-www-form-urlencoded');
    const token = answer.body as { access_token?: unknown; expires_in?: unknown } | null;
    if (answer.status !== 200 || typeof token?.access_token !== 'string') {
      throw new PixProviderUnavailable(`PSP token endpoint answered ${answer.status} (check PIX_CLIENT_ID, PIX_CLIENT_SECRET and the certificate)`);
    }
    const seconds = typeof token.expires_in === 'number' ? token.expires_in : 300;
    this.token = { value: token.access_token, until: now + Math.max(seconds - 60, 1) * 1000 };
    return this.token.value;
  }

  private send(method: string, url: URL, headers: Record<string, string>, payload: string | undefined, type: string): Promise<PspAnswer> {
    const secure = url.protocol === 'https:';
    return new Promise<PspAnswer>((resolve, reject) => {
      const fail = (why: string) => {
        clearTimeout(timer);
        reject(new PixProviderUnavailable(`PSP ${method} ${url.pathname}: ${why}`));
      };
      const request = (secure ? https : http).request(url, {
        method,
        agent: secure ? this.agent : this.plainAgent,
        headers: { accept: 'application/json', ...headers, ...(payload === undefined ? {} : { 'content-type': type, 'content-length': String(Buffer.byteLength(payload)) }) },
      });
      const timer = setTimeout(() => request.destroy(new Error(`no answer within ${this.config.timeoutMs} ms`)), this.config.timeoutMs);
      request.on('response', (response) => {
        readJsonAnswer(response, MAX_ANSWER_BYTES).then((answer) => {
          clearTimeout(timer);
          resolve(answer);
        }, (error: Error) => fail(error.message));
      });
      request.on('error', (error) => fail((error as NodeJS.ErrnoException).code ?? error.message));
      request.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
    this.plainAgent.destroy();
  }
}

/**
 * RFC 6749 section 2.3.1: the client id and secret are each `application/x-www-form-urlencoded`
 * before they are joined for Basic, so a secret holding `+`, `/`, `=`, `%` or `:` reaches a
 * strict server intact.
 */
export function formEncoded(value: string): string {
  return new URLSearchParams([['', value]]).toString().slice(1);
}
