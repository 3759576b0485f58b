import type { Clock } from '../../clock.js';
import type { Database, Executor } from '../../db/connection.js';
import { invalid } from '../../domain/errors.js';
import { PerMerchantCache } from '../../cache/per-merchant-cache.js';
import { antifraudRepository } from './repository.js';

export interface VelocitySettings {
  /** Length of the sliding window, in minutes of business time. */
  windowMinutes: number;
  /** Payments already made in the window with the same card / document / IP at which the rule fires. */
  maxPerCard: number;
  maxPerDocument: number;
  maxPerIp: number;
}

export interface AntifraudSettings {
  velocity: VelocitySettings;
  /** Amounts above this (cents) score `amount_limit`. */
  amountLimit: number;
  /** Score (0..100) from which a payment is held for review, and from which it is rejected. */
  reviewScore: number;
  rejectScore: number;
  /** Score `ip_country_mismatch` when the IP's country is known and differs from customer.country. */
  checkIpCountry: boolean;
  /**
   * 3-D Secure: a payment the gateway authenticates (it carries the buyer's browser context)
   * asks the issuer for a challenge (authenticationType 03) when its amount (cents) is above
   * `challengeAmount`, or its score reaches `challengeScore`. null: that trigger is off.
   */
  challengeAmount: number | null;
  challengeScore: number | null;
}

export type AntifraudSettingsPatch = Partial<Omit<AntifraudSettings, 'velocity'>> & { velocity?: Partial<VelocitySettings> };

/**
 * Defaults, chosen so an honest shop never notices them:
 * - velocity over 60 minutes: a card's 11th payment, a document's 21st, an IP's 31st (an IP is
 *   often shared: offices, mobile carriers' NAT) score 60 each -> Review alone;
 * - amounts above R$ 50,000.00 score 50 -> Review alone;
 * - an IP country that contradicts customer.country scores 30: alone it is Accepted (travellers,
 *   VPNs), with any other signal it reaches Reject;
 * - Review from 50, Reject from 80.
 */
export const DEFAULT_SETTINGS: AntifraudSettings = {
  velocity: { windowMinutes: 60, maxPerCard: 10, maxPerDocument: 20, maxPerIp: 30 },
  amountLimit: 5_000_000,
  reviewScore: 50,
  rejectScore: 80,
  checkIpCountry: true,
  challengeAmount: null,
  challengeScore: null,
};

/** Bounds enforced by the PUT schema. A month-long window keeps each velocity count one index range. */
export const SETTING_LIMITS = {
  windowMinutes: { minimum: 1, maximum: 43_200 },
  maxPerRule: { minimum: 1, maximum: 1_000_000 },
  amountLimit: { minimum: 1, maximum: 1_000_000_000_000 },
  score: { minimum: 1, maximum: 100 },
} as const;

/**
 * Copies the known keys of `patch` over `base`. Known keys only: the stored JSON and the request
 * body never add fields (nor `__proto__`) to the settings object.
 */
export function mergeSettings(base: AntifraudSettings, patch: AntifraudSettingsPatch | undefined): AntifraudSettings {
  const pick = <T>(value: T | undefined, fallback: T): T => (value === undefined ? fallback : value);
  const v = patch?.velocity;
  return {
    velocity: {
      windowMinutes: pick(v?.windowMinutes, base.velocity.windowMinutes),
      maxPerCard: pick(v?.maxPerCard, base.velocity.maxPerCard),
      maxPerDocument: pick(v?.maxPerDocument, base.velocity.maxPerDocument),
      maxPerIp: pick(v?.maxPerIp, base.velocity.maxPerIp),
    },
    amountLimit: pick(patch?.amountLimit, base.amountLimit),
    reviewScore: pick(patch?.reviewScore, base.reviewScore),
    rejectScore: pick(patch?.rejectScore, base.rejectScore),
    checkIpCountry: pick(patch?.checkIpCountry, base.checkIpCountry),
    challengeAmount: pick(patch?.challengeAmount, base.challengeAmount),
    challengeScore: pick(patch?.challengeScore, base.challengeScore),
  };
}

/** Stored rows are merged over the defaults, so a field added in a later release gets its default. */
function fromStored(json: string | undefined): AntifraudSettings {
  if (json === undefined) return DEFAULT_SETTINGS;
  return mergeSettings(DEFAULT_SETTINGS, JSON.parse(json) as AntifraudSettingsPatch);
}

/**
 * Every payment reads its merchant's settings, so they are cached per merchant. A PUT replaces
 * this instance's entry at once; other instances (several share one PostgreSQL) see it when
 * their entry expires. 5 s bounds that lag while sparing almost every payment a query.
 */
export const SETTINGS_CACHE_TTL_MS = 5_000;

export class AntifraudSettingsStore {
  private readonly cache: PerMerchantCache<AntifraudSettings>;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
  ) {
    this.cache = new PerMerchantCache(clock, SETTINGS_CACHE_TTL_MS);
  }

  /** The effective settings, through the cache. Reads on `executor`: the caller may hold a transaction. */
  async effective(executor: Executor, merchantId: string): Promise<AntifraudSettings> {
    return this.cache.get(merchantId, async () => fromStored(await antifraudRepository.findSettings(executor, merchantId)));
  }

  /** The effective settings read from the database (the operator's GET never answers a stale copy). */
  async get(merchantId: string): Promise<AntifraudSettings> {
    const settings = fromStored(await antifraudRepository.findSettings(this.database.db, merchantId));
    this.cache.set(merchantId, settings);
    return settings;
  }

  /**
   * Deep-merges `patch` over the stored settings and answers the result. The read-modify-write
   * holds the row's lock on PostgreSQL, so two partial PUTs racing never lose one another.
   */
  async put(merchantId: string, patch: AntifraudSettingsPatch): Promise<AntifraudSettings> {
    const updatedAt = this.clock.now().toISOString();
    const settings = await this.database.db.transaction().execute(async (trx) => {
      await antifraudRepository.insertSettingsIfAbsent(trx, merchantId, JSON.stringify(DEFAULT_SETTINGS), updatedAt);
      const current = fromStored(await antifraudRepository.findSettings(trx, merchantId, { lock: this.database.dialect === 'postgres' }));
      const next = mergeSettings(current, patch);
      if (next.reviewScore >= next.rejectScore) {
        const tag = patch.reviewScore !== undefined ? 'reviewScore' : 'rejectScore';
        throw invalid(tag, `reviewScore (${next.reviewScore}) must be less than rejectScore (${next.rejectScore}).`);
      }
      await antifraudRepository.updateSettings(trx, merchantId, JSON.stringify(next), updatedAt);
      return next;
    });
    this.cache.set(merchantId, settings);
    return settings;
  }
}
