// A webhook receiver for the gateway: verifies the Standard Webhooks signature over the raw
// body, checks basic auth on webhook notifications (payment callbacks, sent to a payment's
// urlCallBack, carry none: the signature alone authenticates them), answers 200 at once and
// processes afterwards.
// Run: WEBHOOK_SECRET=whsec_... HOOK_USER=shop HOOK_PASSWORD=s3cret npx tsx examples/webhook-receiver.ts
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';

export interface ReceiverOptions {
  secret: string; // the `secret` answered by POST /api/webhooks/subscriptions
  user: string; // the user:password you registered as basicAuth
  password: string;
  onNotification: (notification: any, id: string) => void;
  toleranceSeconds?: number; // refuse replays of old messages (default 5 minutes)
}

const equal = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export function verifySignature(secret: string, headers: IncomingMessage['headers'], body: string, toleranceSeconds = 300): boolean {
  const id = String(headers['webhook-id'] ?? '');
  const timestamp = String(headers['webhook-timestamp'] ?? '');
  const signatures = String(headers['webhook-signature'] ?? '').split(' ');
  if (!id || !/^\d+$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > toleranceSeconds) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = 'v1,' + createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return signatures.some((candidate) => equal(candidate, expected));
}

export function createReceiver(options: ReceiverOptions): Server {
  const basic = 'Basic ' + Buffer.from(`${options.user}:${options.password}`).toString('base64');
  const seen = new Set<string>(); // deliveries are at least once: drop repeats by webhook-id
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8'); // verify the raw bytes, not re-serialized JSON
      if (!verifySignature(options.secret, req.headers, body, options.toleranceSeconds)) return void res.writeHead(401).end();
      let notification: any;
      try {
        notification = JSON.parse(body);
      } catch {
        return void res.writeHead(400).end(); // 400: a bad payload, never retried
      }
      // Webhook notifications (they have a movementId) carry the basicAuth you registered; callbacks do not.
      const isWebhook = notification !== null && typeof notification === 'object' && 'movementId' in notification;
      if (isWebhook && !equal(req.headers.authorization ?? '', basic)) return void res.writeHead(401).end();
      const id = String(req.headers['webhook-id']);
      res.writeHead(200).end(); // answer first (within 30 s), work afterwards
      if (!seen.has(id)) {
        seen.add(id);
        setImmediate(() => options.onNotification(notification, id));
      }
    });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const server = createReceiver({
    secret: process.env.WEBHOOK_SECRET ?? '',
    user: process.env.HOOK_USER ?? '',
    password: process.env.HOOK_PASSWORD ?? '',
    onNotification: (n) => console.log(n.movementId ?? n.paymentId, n.type ?? 'PaymentStatus', `${n.oldValue ?? ''} -> ${n.newValue ?? n.status}`),
  });
  server.listen(Number(process.env.PORT ?? 3000), () => console.log(`listening on :${process.env.PORT ?? 3000}`));
}
