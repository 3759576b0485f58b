import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the receiver saw it. */
export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: any;
  /** Wall-clock ms when it arrived. */
  receivedAt: number;
}

/** How the receiver answers: a status code, optionally after a delay (to play a timeout). */
export type Answer = number | { status: number; delayMs: number };

/**
 * A real HTTP receiver on 127.0.0.1 (an ephemeral port): records every request and answers
 * with what `respond` says (200 by default). Tests script it: 500 then 200, always 400, slow...
 */
export class Receiver {
  readonly received: Received[] = [];
  respond: (req: Received) => Answer = () => 200;
  private server: http.Server | undefined;
  port = 0;

  async start(port = 0): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let json: unknown = null;
        try {
          json = JSON.parse(body);
        } catch {
          json = null;
        }
        const entry: Received = { path: req.url ?? '', headers: req.headers, body, json, receivedAt: performance.timeOrigin + performance.now() };
        this.received.push(entry);
        const answer = this.respond(entry);
        const { status, delayMs } = typeof answer === 'number' ? { status: answer, delayMs: 0 } : answer;
        const send = () => {
          if (!res.destroyed) res.writeHead(status).end();
        };
        if (delayMs > 0) setTimeout(send, delayMs).unref();
        else send();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server!.address() as AddressInfo).port;
    return this;
  }

  url(path = '/hooks'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Requests on one path (webhooks and callbacks go to different paths in these tests). */
  on(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
