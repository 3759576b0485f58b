import type { Clock } from '../../clock.js';
import type { Database, Executor } from '../../db/connection.js';
import type { DataCipher } from '../../security/data-cipher.js';
import { BlocklistService, normaliseEmail } from './blocklist.js';
import { canonicalIp } from './ip.js';
import type { IpCountryResolver } from './ip-countries.js';
import { AntifraudSettingsStore, type AntifraudSettings } from './settings.js';
import { querySignalsMany, type SignalInput, type Signals } from './signals-query.js';

export type AntiFraudDecision = 'Accept' | 'Review' | 'Reject';

export interface AssessmentInput {
  merchantId: string;
  /** Cents. */
  amount: number;
  /** `cardFingerprint()` of the PAN, as stored in `payments.card_fingerprint`. */
  cardFingerprint: string;
  /** The gateway authenticates this payment with 3-D Secure (it carries the buyer's browser context). */
  browserContext?: boolean;
  customer?: {
    /** Velocity compares it with `payments.customer_document` as given: store the same spelling. */
    documentNumber?: string;
    email?: string;
    /** Velocity compares it with `payments.customer_ip` as given; blocklist ranges match its canonical form. */
    ipAddress?: string;
    /** ISO 3166-1 alpha-2. */
    country?: string;
  };
}

export interface Assessment {
  decision: AntiFraudDecision;
  /** 0..100. */
  score: number;
  /** Short codes of the rules that fired, e.g. `velocity_card`, `blocklist_email`, `amount_limit`. */
  reasons: string[];
  /** 3-D Secure: the merchant's settings ask the issuer for a challenge (`challenge_amount`, `challenge_score` among the reasons). */
  challenge?: boolean;
}

/** Points each rule adds; the sum is capped at 100 and compared with the merchant's thresholds. */
export const RULE_POINTS = { velocity: 60, amountLimit: 50, ipCountryMismatch: 30 } as const;

const SANDBOX_TRIGGERS: ReadonlyArray<readonly [suffix: string, decision: 'Review' | 'Reject']> = [
  ['@review.test', 'Review'],
  ['@reject.test', 'Reject'],
];

/**
 * The anti-fraud rules engine (contract section 6). A blocklist hit rejects outright; the other
 * rules add points. Per payment it costs one query (blocklist and velocity together) plus cached
 * settings, blocklist range lengths and IP country ranges, all on the caller's executor, so the payment service may assess inside
 * its own transaction (on SQLite a second connection would wait for that transaction forever).
 */
export class AntiFraudEngine {
  readonly settings: AntifraudSettingsStore;
  readonly blocklist: BlocklistService;

  constructor(
    database: Database,
    private readonly clock: Clock,
    cipher: DataCipher,
    private readonly resolver: IpCountryResolver,
    private readonly options: { sandbox: boolean },
  ) {
    this.settings = new AntifraudSettingsStore(database, clock);
    this.blocklist = new BlocklistService(database, clock, cipher);
  }

  async assess(executor: Executor, input: AssessmentInput): Promise<Assessment> {
    return (await this.assessMany(executor, [input]))[0];
  }

  /** `assess` for a batch (a billing run's payments): the rules' data of them all in one statement. */
  async assessMany(executor: Executor, inputs: readonly AssessmentInput[]): Promise<Assessment[]> {
    const results: Assessment[] = [];
    const asking: { index: number; input: AssessmentInput; settings: AntifraudSettings; signal: SignalInput }[] = [];
    for (const [index, input] of inputs.entries()) {
      const customer = input.customer ?? {};
      const settings = await this.settings.effective(executor, input.merchantId);
      // Sandbox triggers decide first, so an integrator's test outcome never depends on history.
      const email = customer.email ? normaliseEmail(customer.email) : undefined;
      const triggered = this.options.sandbox && email ? SANDBOX_TRIGGERS.find(([suffix]) => email.endsWith(suffix)) : undefined;
      if (triggered) {
        const decision = triggered[1];
        results[index] = { decision, score: decision === 'Reject' ? 100 : settings.reviewScore, reasons: [`sandbox_${decision.toLowerCase()}`] };
        continue;
      }
      const { windowMinutes, maxPerCard, maxPerDocument, maxPerIp } = settings.velocity;
      const signal: SignalInput = {
        merchantId: input.merchantId,
        // Business time: the sandbox clock moves the window.
        since: new Date(this.clock.now().getTime() - windowMinutes * 60_000).toISOString(),
        cardFingerprint: input.cardFingerprint,
        document: customer.documentNumber || undefined,
        ip: customer.ipAddress || undefined,
        thresholds: { card: maxPerCard, document: maxPerDocument, ip: maxPerIp },
        listed: await this.blocklist.candidates(executor, { document: customer.documentNumber, email, ip: customer.ipAddress }),
      };
      asking.push({ index, input, settings, signal });
    }
    const signals = await querySignalsMany(executor, asking.map((a) => a.signal));
    for (const [i, { index, input, settings }] of asking.entries()) results[index] = await this.scored(executor, input, settings, signals[i]);
    return results;
  }

  /** The decision of the rules' data: a blocklist hit rejects outright; the other rules add points. */
  private async scored(executor: Executor, input: AssessmentInput, settings: AntifraudSettings, signals: Signals): Promise<Assessment> {
    if (signals.listed.length > 0) {
      return { decision: 'Reject', score: 100, reasons: signals.listed.map((kind) => `blocklist_${kind}`) };
    }
    const customer = input.customer ?? {};
    const reasons: string[] = [];
    // A count at the threshold fires: maxPerCard 10 means the 11th payment in the window is scored.
    if (signals.velocity.card) reasons.push('velocity_card');
    if (signals.velocity.document) reasons.push('velocity_document');
    if (signals.velocity.ip) reasons.push('velocity_ip');
    let score = reasons.length * RULE_POINTS.velocity;
    if (input.amount > settings.amountLimit) {
      reasons.push('amount_limit');
      score += RULE_POINTS.amountLimit;
    }
    if (settings.checkIpCountry && (await this.countryMismatch(executor, customer.ipAddress, customer.country))) {
      reasons.push('ip_country_mismatch');
      score += RULE_POINTS.ipCountryMismatch;
    }
    score = Math.min(score, 100);
    const decision = score >= settings.rejectScore ? 'Reject' : score >= settings.reviewScore ? 'Review' : 'Accept';
    // Scored first: a challenge is asked of a payment on its amount or its score, never scored itself.
    if (input.browserContext && decision !== 'Reject') {
      if (settings.challengeAmount !== null && input.amount > settings.challengeAmount) reasons.push('challenge_amount');
      if (settings.challengeScore !== null && score >= settings.challengeScore) reasons.push('challenge_score');
    }
    const challenge = reasons.some((r) => r.startsWith('challenge_'));
    return { decision, score, reasons, ...(challenge ? { challenge } : {}) };
  }

  /** Fires only when both countries are known and differ. */
  private async countryMismatch(executor: Executor, ipAddress: string | undefined, country: string | undefined): Promise<boolean> {
    const ip = ipAddress ? canonicalIp(ipAddress) : null;
    if (!ip || !country) return false;
    await this.resolver.refresh?.(executor);
    const located = this.resolver.countryOf(ip);
    return located !== null && located !== country.trim().toUpperCase();
  }
}
