import type { Clock } from '../clock.js';
import type { Database } from '../db/connection.js';
import { invalid } from '../domain/errors.js';
import { PerMerchantCache } from '../cache/per-merchant-cache.js';
import type { DataCipher } from '../security/data-cipher.js';
import { CIELO_PRODUCTION_API_URL, CIELO_PRODUCTION_QUERY_URL, type CieloConnection } from './cielo/acquirer.js';
import { acquirerUrl, environmentOf } from './config.js';

/** What the operator sends: a merchant's own Cielo affiliation. */
export interface ConnectionInput {
  provider: 'cielo';
  merchantId: string;
  merchantKey: string;
  apiUrl?: string;
  queryUrl?: string;
  environment?: 'production' | 'sandbox';
}

/** What the operator reads back: never the key, only its last 4 characters. */
export interface ConnectionView {
  provider: 'cielo';
  merchantId: string;
  merchantKeyLast4: string;
  apiUrl: string;
  queryUrl: string;
  environment: 'production' | 'sandbox';
  updatedAt: string;
}

/** Associated data of a sealed MerchantKey: bound to our merchant id (also sealed-columns.ts). */
export const connectionAd = (merchantId: string) => `acquirer:${merchantId}`;

/**
 * Per-merchant acquirer connections (the operator API), owner of `acquirer_connections`. The
 * MerchantKey is sealed under DATA_KEY, bound to our merchant id so a sealed key cannot be
 * moved to another merchant's row. Every payment asks for its merchant's connection, so it is
 * cached briefly (a change on another instance is seen within 5 s).
 */
export class AcquirerConnections {
  private readonly cache: PerMerchantCache<CieloConnection | null>;

  constructor(
    private readonly database: Database,
    private readonly cipher: DataCipher,
    private readonly clock: Clock,
  ) {
    this.cache = new PerMerchantCache(clock);
  }

  /** The merchant's own connection, or null when it uses the default (the environment's). */
  connectionOf(merchantId: string): Promise<CieloConnection | null> {
    return this.cache.get(merchantId, async () => {
      const row = await this.database.db.selectFrom('acquirer_connections').selectAll().where('merchant_id', '=', merchantId).executeTakeFirst();
      if (!row) return null;
      return {
        apiUrl: row.api_url,
        queryUrl: row.query_url,
        environment: row.environment,
        merchantId: row.provider_merchant_id,
        merchantKey: this.cipher.decrypt(row.merchant_key_sealed, connectionAd(merchantId)),
      };
    });
  }

  async view(merchantId: string): Promise<ConnectionView | null> {
    const row = await this.database.db.selectFrom('acquirer_connections').selectAll().where('merchant_id', '=', merchantId).executeTakeFirst();
    if (!row) return null;
    const key = this.cipher.decrypt(row.merchant_key_sealed, connectionAd(merchantId));
    return { provider: 'cielo', merchantId: row.provider_merchant_id, merchantKeyLast4: key.slice(-4), apiUrl: row.api_url, queryUrl: row.query_url, environment: row.environment, updatedAt: row.updated_at };
  }

  async put(merchantId: string, input: ConnectionInput): Promise<ConnectionView> {
    // Operator URLs may be http: an operator's own proxy in front of Cielo (webhook rules do not apply here).
    const failOn = (tag: string) => (message: string): never => {
      throw invalid(tag, message);
    };
    const apiUrl = acquirerUrl(input.apiUrl ?? CIELO_PRODUCTION_API_URL, 'apiUrl', failOn('apiUrl'));
    const queryUrl = acquirerUrl(input.queryUrl ?? CIELO_PRODUCTION_QUERY_URL, 'queryUrl', failOn('queryUrl'));
    const environment = environmentOf(apiUrl, input.environment, failOn('environment'));
    const now = this.clock.now().toISOString();
    const values = {
      provider: input.provider,
      api_url: apiUrl,
      query_url: queryUrl,
      environment,
      provider_merchant_id: input.merchantId,
      merchant_key_sealed: this.cipher.encrypt(input.merchantKey, connectionAd(merchantId)),
      updated_at: now,
    };
    await this.database.db
      .insertInto('acquirer_connections')
      .values({ merchant_id: merchantId, created_at: now, ...values })
      .onConflict((oc) => oc.column('merchant_id').doUpdateSet(values))
      .execute();
    this.cache.set(merchantId, { apiUrl, queryUrl, environment, merchantId: input.merchantId, merchantKey: input.merchantKey });
    return (await this.view(merchantId))!;
  }

  /** Back to the default connection; true when there was one to remove. */
  async remove(merchantId: string): Promise<boolean> {
    const result = await this.database.db.deleteFrom('acquirer_connections').where('merchant_id', '=', merchantId).executeTakeFirst();
    this.cache.set(merchantId, null);
    return Number(result.numDeletedRows) > 0;
  }
}
