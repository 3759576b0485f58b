import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * The operator's ADMIN_API_KEY, kept only as its SHA-256 digest. Candidates are compared digest
 * to digest in constant time: equal-length inputs, so neither the key's length nor its prefix
 * leaks through timing.
 */
export class AdminKey {
  private readonly digest: Buffer;

  constructor(key: string) {
    this.digest = digestOf(key);
  }

  matches(candidate: string): boolean {
    return timingSafeEqual(digestOf(candidate), this.digest);
  }
}

function digestOf(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}
