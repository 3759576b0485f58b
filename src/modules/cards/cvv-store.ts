/**
 * The CVV of a numberToken, kept in this process's memory only until the token is used or
 * expires: a CVV is never written to the database (contract section 5). Consequence, by
 * design: a payment served by another instance than the one that tokenized the card (or after
 * a restart) finds no CVV and is authorized without it, which acquirers accept for
 * card-not-present tokens.
 */
export class CvvStore {
  /** Insertion order is expiry order (every entry lives the same TTL), so purging stops early. */
  private readonly entries = new Map<string, { cvv: string; expiresAt: number }>();

  put(numberToken: string, cvv: string, expiresAt: Date, now: Date): void {
    this.purge(now);
    this.entries.set(numberToken, { cvv, expiresAt: expiresAt.getTime() });
  }

  /** Removes and answers the CVV: it serves one authorization at most. */
  take(numberToken: string, now: Date): string | undefined {
    this.purge(now);
    const entry = this.entries.get(numberToken);
    this.entries.delete(numberToken);
    return entry && entry.expiresAt > now.getTime() ? entry.cvv : undefined;
  }

  /** The CVV without removing it (a zero auth before the token's payment or storage). */
  peek(numberToken: string, now: Date): string | undefined {
    const entry = this.entries.get(numberToken);
    return entry && entry.expiresAt > now.getTime() ? entry.cvv : undefined;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Drops expired entries from the oldest on; amortised O(1) per call. */
  private purge(now: Date): void {
    for (const [token, entry] of this.entries) {
      if (entry.expiresAt > now.getTime()) break;
      this.entries.delete(token);
    }
  }
}
