import { CieloAcquirer, CIELO_REFERENCE_PREFIX } from './cielo/acquirer.js';
import { CieloHttp } from './cielo/http.js';
import type { AcquirerConfig } from './config.js';
import type { AcquirerConnections } from './connections.js';
import { SandboxAcquirer, SANDBOX_REFERENCE_PREFIX } from './sandbox/acquirer.js';
import { AcquirerUnavailable, type Acquirer, type AuthorizeRequest, type AuthorizeResult, type CallContext, type CancelRequest, type CancelResult, type LookupRequest, type RefundRequest, type RefundResult, type ZeroAuthRequest, type ZeroAuthResult } from './types.js';

type Operation = 'authorize' | 'cancel' | 'lookup' | 'refund' | 'lookup_refund' | 'zero_auth';
type Failure = 'unreachable' | 'no_answer' | 'refused' | 'error';

/** One connector call as the router saw it. */
export interface AcquirerCall {
  /** `sandbox` or `cielo`. */
  acquirer: string;
  operation: Operation;
  /** authorize: approved, declined, failed; cancel: canceled, failed; refund: refunded, failed; lookup(_refund): found, pending, not_found; any: unreachable, no_answer, error. */
  outcome: string;
  seconds: number;
  /** Set when the call is an acquirer failure: never sent, sent without an answer, refused (96), or an error of ours. A decline is not one. */
  failure?: Failure;
}

/** Where each connector call is reported (GatewayMetrics fits). */
export interface AcquirerMetrics {
  acquirerCall(call: AcquirerCall): void;
}
type Classified = { outcome: string; failure?: 'refused' };

/** An answer's outcome label; the acquirer answering that it could not process the call (96) is a failure, a decline is not. */
const authorizeOutcome = (r: AuthorizeResult): Classified => (r.outcome === 'failed' ? { outcome: 'failed', failure: 'refused' } : { outcome: r.outcome });
const cancelOutcome = (r: CancelResult): Classified => (r.outcome === 'failed' ? { outcome: 'failed', failure: 'refused' } : { outcome: r.outcome });
const lookupOutcome = (r: AuthorizeResult | 'pending' | null): Classified => ({ outcome: r === null ? 'not_found' : r === 'pending' ? 'pending' : 'found' });
const refundOutcome = (r: RefundResult): Classified => (r.outcome === 'failed' ? { outcome: 'failed', failure: 'refused' } : { outcome: r.outcome });
const lookupRefundOutcome = (r: RefundResult | null): Classified => ({ outcome: r === null ? 'not_found' : 'found' });

/**
 * The acquirer the payment service talks to: it sends each call to the right connector. A
 * merchant with its own connection (operator API) goes to it; every other merchant to the
 * default from the environment (ACQUIRER). A cancel or a refund goes where the authorization was
 * made, told by its reference's prefix, so payments made before ACQUIRER changed can still be
 * cancelled and refunded.
 */
export class AcquirerRouter implements Acquirer {
  private readonly http: CieloHttp;
  private readonly defaultCielo: CieloAcquirer | undefined;

  constructor(
    private readonly config: AcquirerConfig,
    readonly sandbox: SandboxAcquirer,
    private readonly connections: AcquirerConnections,
    private readonly metrics?: AcquirerMetrics,
  ) {
    this.http = new CieloHttp(config.timeoutMs);
    const { cielo } = config;
    if (config.kind === 'cielo' && cielo.merchantId && cielo.merchantKey) {
      this.defaultCielo = new CieloAcquirer({ ...cielo, merchantId: cielo.merchantId, merchantKey: cielo.merchantKey }, this.http, config.timeoutMs);
    }
  }

  /** What charges a merchant's cards: its own Cielo connection, else the default. */
  async for(merchantId: string): Promise<Acquirer> {
    const own = await this.connections.connectionOf(merchantId);
    if (own) return new CieloAcquirer(own, this.http, this.config.timeoutMs);
    return this.defaultCielo ?? this.sandbox;
  }

  async authorize(request: AuthorizeRequest, context: CallContext): Promise<AuthorizeResult> {
    const acquirer = await this.for(request.merchantId);
    return this.timed(acquirer, 'authorize', () => acquirer.authorize(request, context), authorizeOutcome);
  }

  /** A card check without a charge, at the merchant's connector. */
  async zeroAuth(request: ZeroAuthRequest): Promise<ZeroAuthResult> {
    const acquirer = await this.for(request.merchantId);
    if (!acquirer.zeroAuth) return { valid: false, returnCode: '96', returnMessage: 'This acquirer cannot check a card without charging it' };
    return this.timed(acquirer, 'zero_auth', () => acquirer.zeroAuth!(request), (r) => ({ outcome: r.valid ? 'valid' : r.returnCode === '96' ? 'failed' : 'invalid', ...(r.returnCode === '96' ? { failure: 'refused' as const } : {}) }));
  }

  async cancel(request: CancelRequest, context: CallContext): Promise<CancelResult> {
    const target = await this.saleAcquirer(request);
    if ('failed' in target) return { outcome: 'failed', returnMessage: target.failed };
    return this.timed(target.acquirer, 'cancel', () => target.acquirer.cancel(request, context), cancelOutcome);
  }

  async refund(request: RefundRequest, context: CallContext): Promise<RefundResult> {
    const target = await this.saleAcquirer(request);
    if ('failed' in target) return { outcome: 'failed', returnMessage: target.failed };
    return this.timed(target.acquirer, 'refund', () => target.acquirer.refund(request, context), refundOutcome);
  }

  async lookupRefund(request: RefundRequest, context: CallContext): Promise<RefundResult | null> {
    const target = await this.saleAcquirer(request);
    // The sale's connector cannot be asked now (its connection removed): that is no answer, never "not made".
    if ('failed' in target) throw new AcquirerUnavailable(true, target.failed);
    return this.timed(target.acquirer, 'lookup_refund', () => target.acquirer.lookupRefund(request, context), lookupRefundOutcome);
  }

  async closeRefund(request: RefundRequest, context: CallContext, returnMessage: string): Promise<RefundResult> {
    const target = await this.saleAcquirer(request);
    if ('failed' in target || !target.acquirer.closeRefund) return { outcome: 'failed', returnMessage };
    return target.acquirer.closeRefund(request, context, returnMessage);
  }

  /** The connector that made a sale, told by its reference's prefix (a cancel or refund goes there). */
  private async saleAcquirer(request: { merchantId: string; acquirerReference: string }): Promise<{ acquirer: Acquirer } | { failed: string }> {
    if (request.acquirerReference.startsWith(SANDBOX_REFERENCE_PREFIX)) return { acquirer: this.sandbox };
    if (!request.acquirerReference.startsWith(CIELO_REFERENCE_PREFIX)) return { failed: 'Unknown acquirer reference' };
    const acquirer = await this.for(request.merchantId);
    if (acquirer === this.sandbox) return { failed: 'This payment was made through Cielo, and no Cielo connection is configured now' };
    return { acquirer };
  }

  async closeKey(request: LookupRequest, returnMessage: string): Promise<AuthorizeResult | undefined> {
    const acquirer = await this.for(request.merchantId);
    return acquirer.closeKey?.(request, returnMessage);
  }

  async lookup(request: LookupRequest): Promise<AuthorizeResult | 'pending' | null> {
    const acquirer = await this.for(request.merchantId);
    return this.timed(acquirer, 'lookup', () => acquirer.lookup(request), lookupOutcome);
  }

  /**
   * Times one connector call and reports its outcome, here rather than in each connector so
   * every connector is covered alike. Only the call: finding the merchant's connection is ours.
   * No answer is told apart as the connectors tell it (AcquirerUnavailable.sent).
   */
  private async timed<T>(acquirer: Acquirer, operation: Operation, call: () => Promise<T>, classify: (result: T) => Classified): Promise<T> {
    if (!this.metrics) return call();
    // `for` hands out the sandbox or a Cielo connector, nothing else.
    const name = acquirer === this.sandbox ? 'sandbox' : 'cielo';
    const started = performance.now();
    const report = (c: { outcome: string; failure?: Failure }) =>
      this.metrics!.acquirerCall({ acquirer: name, operation, seconds: (performance.now() - started) / 1000, ...c });
    let result: T;
    try {
      result = await call();
    } catch (error) {
      const kind = error instanceof AcquirerUnavailable ? (error.sent ? 'no_answer' : 'unreachable') : 'error';
      report({ outcome: kind, failure: kind });
      throw error;
    }
    report(classify(result));
    return result;
  }

  async settleWindowMs(merchantId: string): Promise<number> {
    return (await this.for(merchantId)).settleWindowMs(merchantId);
  }

  /** Production with the sandbox acquirer as default (stated with ACQUIRER=sandbox). */
  get defaultIsSandbox(): boolean {
    return this.defaultCielo === undefined;
  }

  close(): void {
    this.http.close();
  }
}
