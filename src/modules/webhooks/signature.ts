import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Standard Webhooks (standardwebhooks.com) signing, the scheme Svix and others verify:
 * the secret is `whsec_` + base64 of 32 random bytes, the HMAC key is those decoded bytes, and
 * `webhook-signature` is `v1,` + base64(HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<body>")).
 */
const PREFIX = 'whsec_';

export function generateSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

export function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/**
 * The receiver's side, as the README shows it: true when one of the space-separated `v1,`
 * signatures matches. (The timestamp tolerance is the receiver's policy; see the README.)
 */
export function verify(secret: string, id: string, timestampSeconds: number, body: string, header: string): boolean {
  const expected = Buffer.from(sign(secret, id, timestampSeconds, body));
  return header.split(' ').some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/**
 * `basicAuth` as the seed defines it: Base64 of `user:password` (canonical padding, a non-empty
 * user, printable UTF-8). Answers the problem, or null when it is well formed.
 */
export function basicAuthProblem(value: string): string | null {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value) || value.length % 4 !== 0) return 'must be Base64 of user:password';
  const decoded = Buffer.from(value, 'base64');
  if (decoded.toString('base64') !== value) return 'must be Base64 of user:password';
  const text = decoded.toString('utf8');
  if (Buffer.from(text, 'utf8').compare(decoded) !== 0) return 'must decode to UTF-8 text user:password';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(text)) return 'must not contain control characters once decoded';
  const colon = text.indexOf(':');
  if (colon <= 0) return 'must decode to user:password with a non-empty user';
  return null;
}
