import { randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { AnswerCut, readJsonAnswer, type ServiceAnswer } from '../../outbound/json-answer.js';
import { AcquirerUnavailable } from '../types.js';

export interface CieloCredentials {
  merchantId: string;
  merchantKey: string;
}

/** Cielo's answer as read by readJsonAnswer. */
export type CieloAnswer = ServiceAnswer;

/** An answer bigger than this is not Cielo's; reading on would only let a proxy fill our memory. */
const MAX_ANSWER_BYTES = 1024 * 1024;

/**
 * JSON over keep-alive HTTP(S) to Cielo, within one overall timeout per call. It tells the two
 * kinds of silence apart, because they mean opposite things for money: a request that never
 * reached a connected socket (refused, no such host, connect timeout) cannot have been acted
 * on (`sent: false`); one that was written and got no complete answer (timeout, reset, a
 * dropped connection) may have been (`sent: true`), and must be looked up, never read as a
 * decline. Errors carry no header, body or credential.
 */
export class CieloHttp {
  private readonly httpAgent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  private readonly httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 256 });

  constructor(private readonly timeoutMs: number) {}

  call(method: 'GET' | 'POST' | 'PUT', url: URL, credentials: CieloCredentials, body?: unknown): Promise<CieloAnswer> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise<CieloAnswer>((resolve, reject) => {
      let settled = false;
      let connected = false;
      const fail = (why: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(new AcquirerUnavailable(connected, `Cielo ${method} ${url.pathname}: ${why}`));
      };
      const secure = url.protocol === 'https:';
      const request = (secure ? https : http).request(url, {
        method,
        agent: secure ? this.httpsAgent : this.httpAgent,
        headers: {
          accept: 'application/json',
          MerchantId: credentials.merchantId,
          MerchantKey: credentials.merchantKey,
          // Cielo's per-request id (for its support), a new one per HTTP call.
          RequestId: randomUUID(),
          ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }),
        },
      });
      const timer = setTimeout(() => request.destroy(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
      request.on('socket', (socket) => {
        // A kept-alive socket is connected already; a new one says so when it is.
        if (!socket.connecting) connected = true;
        else socket.once(secure ? 'secureConnect' : 'connect', () => (connected = true));
      });
      request.on('response', (response) => {
        readJsonAnswer(response, MAX_ANSWER_BYTES).then(
          (answer) => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            resolve(answer);
          },
          (error: Error) => fail(error instanceof AnswerCut ? 'the answer was cut off' : error.message),
        );
      });
      request.on('error', (error) => fail(describe(error)));
      request.end(payload);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

function describe(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (!code) return error instanceof Error ? error.message : 'request failed';
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    default:
      return `request failed (${code})`;
  }
}
