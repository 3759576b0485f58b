import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * A compact JWS (RFC 7515) signed with HMAC-SHA256: how the sandbox ACS vouches for the CRes
 * (and the CReq) it hands the browser. The browser carries them; it cannot change them.
 */
const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

export function signMessage(key: Buffer, payload: object): string {
  const body = `${HEADER}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  return `${body}.${createHmac('sha256', key).update(body).digest('base64url')}`;
}

/** The payload of a message this key signed, or undefined (malformed, or another signer). */
export function verifyMessage<T>(key: Buffer, message: string): T | undefined {
  const parts = message.split('.');
  if (parts.length !== 3 || parts[0] !== HEADER) return undefined;
  const expected = createHmac('sha256', key).update(`${parts[0]}.${parts[1]}`).digest();
  const given = Buffer.from(parts[2]!, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    return JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as T;
  } catch {
    return undefined;
  }
}
