import type { Clock } from '../clock.js';

/**
 * A value per merchant (or per credential) that every payment reads (anti-fraud settings,
 * pricing, the caller's credential), kept for a short while. Writes on this instance replace the entry at once; other instances (several share one
 * PostgreSQL) see a change when their entry expires. Freshness runs on the wall clock: a sandbox
 * advance must not expire it. Memory is bounded: dropping the whole map only costs one query per
 * merchant.
 */
export class PerMerchantCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs = 5_000,
    private readonly maxEntries = 50_000,
  ) {}

  /** The value while it is fresh, else undefined. */
  peek(merchantId: string): V | undefined {
    const hit = this.entries.get(merchantId);
    return hit && hit.expiresAt > this.clock.wallNow().getTime() ? hit.value : undefined;
  }

  async get(merchantId: string, load: () => Promise<V>): Promise<V> {
    const hit = this.entries.get(merchantId);
    if (hit && hit.expiresAt > this.clock.wallNow().getTime()) return hit.value;
    const value = await load();
    this.set(merchantId, value);
    return value;
  }

  /** Forgets an entry (a credential revoked here is refused at once on this instance). */
  delete(merchantId: string): void {
    this.entries.delete(merchantId);
  }

  set(merchantId: string, value: V): void {
    if (this.entries.size >= this.maxEntries && !this.entries.has(merchantId)) this.entries.clear();
    this.entries.set(merchantId, { value, expiresAt: this.clock.wallNow().getTime() + this.ttlMs });
  }
}
