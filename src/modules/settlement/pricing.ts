import type { Clock } from '../../clock.js';
import { PerMerchantCache } from '../../cache/per-merchant-cache.js';
import type { Database, Executor } from '../../db/connection.js';
import { DEFAULT_PRICING, type Pricing } from '../../domain/fees.js';
import { parseDecimal, PRICING_PERCENT, toJsonNumber, type DecimalSpec } from '../../domain/money.js';
import { invalid } from '../../domain/errors.js';

/** Fees are reais with 2 decimals; R$ 9,999.99 per transaction is far above any real price. */
const FEE: DecimalSpec = { integerDigits: 4, decimals: 2 };

/** The pricing as the API writes it: percents and reais as JSON numbers. */
export interface PricingJson {
  mdr: { credit1x: number; credit2to6: number; credit7to12: number; pix: number };
  transactionFee: number;
  antifraudFee: number;
  prepayment: { monthlyRate: number; automatic: boolean };
}

export type PricingPatch = {
  mdr?: Partial<PricingJson['mdr']>;
  transactionFee?: number;
  antifraudFee?: number;
  prepayment?: Partial<PricingJson['prepayment']>;
};

export function pricingToJson(p: Pricing): PricingJson {
  const pct = (v: bigint) => toJsonNumber(v, 4);
  return {
    mdr: { credit1x: pct(p.mdr.credit1x), credit2to6: pct(p.mdr.credit2to6), credit7to12: pct(p.mdr.credit7to12), pix: pct(p.mdr.pix) },
    transactionFee: toJsonNumber(p.transactionFee, 2),
    antifraudFee: toJsonNumber(p.antifraudFee, 2),
    prepayment: { monthlyRate: pct(p.prepayment.monthlyRate), automatic: p.prepayment.automatic },
  };
}

/** Applies a validated patch; every problem of the body is reported at once, tagged by its path. */
export function applyPricingPatch(base: Pricing, patch: PricingPatch): Pricing {
  const errors: { tag: string; description: string }[] = [];
  const parse = (value: unknown, spec: DecimalSpec, tag: string, fallback: bigint, what: string): bigint => {
    if (value === undefined) return fallback;
    const parsed = parseDecimal(value, spec);
    if (parsed.ok) return parsed.value;
    errors.push({ tag, description: `${tag} must be ${what} (${parsed.error}).` });
    return fallback;
  };
  const pct = (value: unknown, tag: string, fallback: bigint) => parse(value, PRICING_PERCENT, tag, fallback, 'a percent 0..100 with at most 4 decimals');
  const fee = (value: unknown, tag: string, fallback: bigint) => parse(value, FEE, tag, fallback, 'an amount in reais 0..9999.99 with at most 2 decimals');
  const next: Pricing = {
    mdr: {
      credit1x: pct(patch.mdr?.credit1x, 'mdr.credit1x', base.mdr.credit1x),
      credit2to6: pct(patch.mdr?.credit2to6, 'mdr.credit2to6', base.mdr.credit2to6),
      credit7to12: pct(patch.mdr?.credit7to12, 'mdr.credit7to12', base.mdr.credit7to12),
      pix: pct(patch.mdr?.pix, 'mdr.pix', base.mdr.pix),
    },
    transactionFee: fee(patch.transactionFee, 'transactionFee', base.transactionFee),
    antifraudFee: fee(patch.antifraudFee, 'antifraudFee', base.antifraudFee),
    prepayment: {
      monthlyRate: pct(patch.prepayment?.monthlyRate, 'prepayment.monthlyRate', base.prepayment.monthlyRate),
      automatic: patch.prepayment?.automatic ?? base.prepayment.automatic,
    },
  };
  if (errors.length > 0) throw invalid(errors);
  return next;
}

/** Stored as scaled integers in strings: no float ever touches a price. */
function serialize(p: Pricing): string {
  return JSON.stringify(p, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
}

function deserialize(json: string | undefined): Pricing {
  if (json === undefined) return DEFAULT_PRICING;
  const s = JSON.parse(json);
  const big = (v: unknown, fallback: bigint) => (typeof v === 'string' ? BigInt(v) : fallback);
  const d = DEFAULT_PRICING;
  return {
    mdr: {
      credit1x: big(s.mdr?.credit1x, d.mdr.credit1x),
      credit2to6: big(s.mdr?.credit2to6, d.mdr.credit2to6),
      credit7to12: big(s.mdr?.credit7to12, d.mdr.credit7to12),
      pix: big(s.mdr?.pix, d.mdr.pix),
    },
    transactionFee: big(s.transactionFee, d.transactionFee),
    antifraudFee: big(s.antifraudFee, d.antifraudFee),
    prepayment: { monthlyRate: big(s.prepayment?.monthlyRate, d.prepayment.monthlyRate), automatic: s.prepayment?.automatic ?? d.prepayment.automatic },
  };
}

/** Per-merchant pricing (GET/PUT /admin/merchants/{id}/pricing); a merchant without a row has the defaults. */
export class PricingStore {
  /**
   * Every authorization prices its receivables, so pricing is cached per merchant (a few seconds
   * of lag on other instances is fine for a schedule that applies to sales made afterwards).
   */
  private readonly cache: PerMerchantCache<Pricing>;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
  ) {
    this.cache = new PerMerchantCache(clock);
  }

  /** Reads on the caller's executor: receivables are priced inside the payment's transaction. */
  async get(executor: Executor, merchantId: string): Promise<Pricing> {
    return this.cache.get(merchantId, async () => {
      const row = await executor.selectFrom('merchant_pricing').select('pricing').where('merchant_id', '=', merchantId).executeTakeFirst();
      return deserialize(row?.pricing);
    });
  }

  /** Read-modify-write under the row lock on PostgreSQL, so two partial PUTs never lose one another. */
  async put(merchantId: string, patch: PricingPatch): Promise<Pricing> {
    const at = this.clock.now().toISOString();
    return this.database.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('merchant_pricing')
        .values({ merchant_id: merchantId, pricing: serialize(DEFAULT_PRICING), updated_at: at })
        .onConflict((oc) => oc.column('merchant_id').doNothing())
        .execute();
      let query = trx.selectFrom('merchant_pricing').select('pricing').where('merchant_id', '=', merchantId);
      if (this.database.dialect === 'postgres') query = query.forUpdate();
      const current = deserialize((await query.executeTakeFirst())?.pricing);
      const next = applyPricingPatch(current, patch);
      await trx.updateTable('merchant_pricing').set({ pricing: serialize(next), updated_at: at }).where('merchant_id', '=', merchantId).execute();
      return next;
    }).then((next) => {
      this.cache.set(merchantId, next);
      return next;
    });
  }
}
