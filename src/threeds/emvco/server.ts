import { ChallengeRefused, ThreeDsUnavailable, type AuthenticateRequest, type AuthenticateResult, type ChallengeResult, type ThreeDsServer } from '../types.js';
import { aresOf, areqOf, cresTransactionOf, rreqResultOf, type EmvcoARes, type EmvcoRReq } from './messages.js';

export interface EmvcoSettings {
  url: string;
  apiKey: string | undefined;
  timeoutMs: number;
}

/**
 * A 3DS server that speaks EMVCo 3DS 2.2 messages over HTTP: the AReq goes to
 * `POST {url}/3ds/authenticate` and its ARes comes back; after a challenge, the CRes the
 * browser posts to us is only a pointer (it travels through the buyer's browser, unsigned):
 * the result is the RReq the ACS sent the 3DS server, read from `GET {url}/3ds/results/{id}`.
 * Authenticating moves no money: a lost answer is simply "not authenticated".
 */
export class EmvcoThreeDsServer implements ThreeDsServer {
  constructor(private readonly settings: EmvcoSettings) {}

  async authenticate(request: AuthenticateRequest, context: { idempotencyKey: string }): Promise<AuthenticateResult> {
    const answer = await this.call('POST', '/3ds/authenticate', areqOf(request, context.idempotencyKey));
    if (answer.status !== 200) throw new ThreeDsUnavailable(`the 3DS server answered ${answer.status}`);
    return aresOf(answer.body as EmvcoARes);
  }

  async challengeResult(cres: string): Promise<ChallengeResult> {
    const transactionId = cresTransactionOf(cres);
    if (!transactionId) throw new ChallengeRefused('the CRes is not an EMVCo CRes');
    const answer = await this.call('GET', `/3ds/results/${encodeURIComponent(transactionId)}`);
    if (answer.status === 404) throw new ChallengeRefused('the 3DS server has no result for this transaction');
    if (answer.status !== 200) throw new ThreeDsUnavailable(`the 3DS server answered ${answer.status}`);
    return rreqResultOf(answer.body as EmvcoRReq, transactionId);
  }

  private async call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
    let response: Response;
    try {
      response = await fetch(`${this.settings.url}${path}`, {
        method,
        headers: {
          accept: 'application/json',
          ...(this.settings.apiKey ? { authorization: `Bearer ${this.settings.apiKey}` } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
    } catch (error) {
      throw new ThreeDsUnavailable(`3DS server ${method} ${path}: ${(error as Error).name}`);
    }
    const text = await response.text().catch(() => '');
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      if (response.status === 200) throw new ThreeDsUnavailable('the 3DS server answered something that is not JSON');
    }
    return { status: response.status, body: parsed };
  }
}
