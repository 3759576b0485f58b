import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Credential passwords are stored only as scrypt hashes: `scrypt$<log2N>$<r>$<p>$<salt>$<hash>`.
 * The parameters travel with the hash, so raising the cost later keeps old hashes verifiable.
 * The async `scrypt` runs on libuv's pool: a login does not block other requests.
 */
const KEY_LENGTH = 32;

function scryptAsync(password: string, salt: Buffer, log2N: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** log2N;
  return new Promise((resolve, reject) =>
    scrypt(password, salt, KEY_LENGTH, { N, r, p, maxmem: 256 * N * r + 1024 * 1024 }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string, log2N: number): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(password, salt, log2N, 8, 1);
  return ['scrypt', log2N, 8, 1, salt.toString('base64'), hash.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, log2N, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64'), Number(log2N), Number(r), Number(p));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** Random secrets the operator hands out: URL-safe, no ambiguity. */
export function randomSecret(bytes = 18): string {
  return randomBytes(bytes).toString('base64url');
}
