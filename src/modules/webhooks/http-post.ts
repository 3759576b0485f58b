import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { AddressNotAllowedError, hostOf, publicAddressesOf, type HostResolver } from './address-policy.js';

export interface PostResult {
  /** The receiver's status code, or null when no answer came. */
  statusCode: number | null;
  /** Why no answer came (timeout, refused...), or null. Never carries a header or body. */
  error: string | null;
  durationMs: number;
}

export interface PosterOptions {
  timeoutMs: number;
  /** Production: connect only to public addresses, checked on the address actually connected. */
  publicOnly: boolean;
  resolve: HostResolver;
}

const USER_AGENT = 'payment-gateway-webhooks/1';
/** The receiver's answer body is not used; reading more than this of it is pointless. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * POSTs notification bodies. Keep-alive agents reuse connections to the same receiver (a
 * receiver with a backlog takes hundreds a second). In production every connection's address
 * comes from our own look-up and is checked there, at connect time: a host that answered with
 * a public address when it was registered and a private one now (DNS rebinding) is refused.
 */
export class HttpPoster {
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;

  constructor(private readonly options: PosterOptions) {
    const lookup = options.publicOnly ? guardedLookup(options.resolve) : undefined;
    this.httpAgent = new http.Agent({ keepAlive: true, maxSockets: 64, lookup } as http.AgentOptions);
    this.httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 64, lookup } as https.AgentOptions);
  }

  async post(target: URL, body: string, headers: Record<string, string>): Promise<PostResult> {
    const started = performance.now();
    const done = (statusCode: number | null, error: string | null): PostResult => ({ statusCode, error, durationMs: Math.round(performance.now() - started) });
    if (this.options.publicOnly) {
      // A literal address never goes through the agent's look-up: check it here.
      const host = hostOf(target);
      if (isIP(host)) {
        try {
          await publicAddressesOf(host, this.options.resolve);
        } catch (error) {
          return done(null, describe(error, this.options.timeoutMs));
        }
      }
    }
    return new Promise<PostResult>((resolve) => {
      let settled = false;
      const finish = (statusCode: number | null, error: string | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(done(statusCode, error));
      };
      const secure = target.protocol === 'https:';
      const request = (secure ? https : http).request(target, {
        method: 'POST',
        agent: secure ? this.httpsAgent : this.httpAgent,
        headers: { ...headers, 'content-length': Buffer.byteLength(body).toString(), 'user-agent': USER_AGENT },
      });
      // The whole exchange, connect to last byte, within the timeout (the seed's 30 seconds).
      const timer = setTimeout(() => request.destroy(new TimeoutError()), this.options.timeoutMs);
      request.on('response', (response) => {
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_RESPONSE_BYTES) response.destroy();
        });
        response.on('end', () => finish(response.statusCode ?? null, null));
        response.on('close', () => finish(response.statusCode ?? null, null));
        response.on('error', () => finish(response.statusCode ?? null, null));
      });
      request.on('error', (error) => finish(null, describe(error, this.options.timeoutMs)));
      request.end(body);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

class TimeoutError extends Error {}

/** A short, safe description of a failed exchange (no headers, no body, no credentials). */
function describe(error: unknown, timeoutMs: number): string {
  if (error instanceof TimeoutError) return `no answer within ${timeoutMs} ms`;
  if (error instanceof AddressNotAllowedError) return `address not allowed: ${error.message}`;
  const code = (error as NodeJS.ErrnoException)?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset by the receiver';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    case 'ETIMEDOUT':
      return 'connection timed out';
    default:
      if (code?.startsWith('ERR_TLS') || code?.includes('CERT')) return `TLS error (${code})`;
      return code ? `request failed (${code})` : 'request failed';
  }
}

/** A net.connect look-up that resolves with our resolver and refuses non-public answers. */
function guardedLookup(resolve: HostResolver): LookupFunction {
  return ((hostname: string, options: { all?: boolean; family?: number }, callback: (...args: unknown[]) => void) => {
    publicAddressesOf(hostname, resolve).then(
      (addresses) => {
        const entries = addresses.map((address) => ({ address, family: isIP(address) }));
        if (options?.all) callback(null, entries);
        else callback(null, entries[0].address, entries[0].family);
      },
      (error) => callback(error),
    );
  }) as LookupFunction;
}
