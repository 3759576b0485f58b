import type { JobDefinition } from '../../jobs/registry.js';
import { BillingService } from './billings-service.js';
import { DEFAULT_CHARGE_CONCURRENCY, type ChargeDeps } from './charge-attempt.js';
import { BillingEngine, CHARGE_JOB, type ChargePayload } from './engine.js';
import { PlanService } from './plans-service.js';
import { PixCycles } from './pix-cycles.js';
import { SubscriptionService } from './subscriptions-service.js';
import { CardUpdateLinks } from './card-update-links.js';
import { cardExpiringJobs } from './card-expiring.js';

/**
 * Charge jobs handed to the engine at once. A batch waits for its slowest payment before its
 * outcomes are recorded together, so the batches are a quarter of the default concurrency: four
 * in flight keep the acquirer busy while one records.
 */
const CHARGE_BATCH = 32;
import { sandboxDelete, type ResetCounts, type ResetExecutor } from '../../db/sandbox-reset.js';

/** Recurrence (contract section 8): plans, subscriptions, billings, and the engine that charges them. */
export class RecurrenceService {
  readonly engine: BillingEngine;
  readonly plans: PlanService;
  readonly subscriptions: SubscriptionService;
  readonly billings: BillingService;
  /** Pix Automático's billings: ./pix-cycles.ts. */
  readonly pixCycles: PixCycles;
  /** Card update links (dunning): ./card-update-links.ts. */
  readonly cardLinks: CardUpdateLinks;

  constructor(private readonly deps: ChargeDeps) {
    this.engine = new BillingEngine(deps);
    this.pixCycles = new PixCycles(deps, this.engine);
    this.plans = new PlanService(deps.database, deps.clock, this.engine, deps.pixRecurrences, deps.logger);
    this.subscriptions = new SubscriptionService(deps.database, deps.clock, this.engine, deps.cards, deps.pixRecurrences, deps.cardSettings);
    this.billings = new BillingService(deps.database, deps.clock, this.engine, deps.pixRecurrences);
    this.cardLinks = new CardUpdateLinks(deps, this.engine, this.subscriptions, deps.publicUrl ?? '');
  }

  /** Sandbox reset (src/modules/sandbox/reset-service.ts): this module's business rows, every merchant's or one's. */
  async resetSandboxData(executor: ResetExecutor, merchantId?: string): Promise<ResetCounts> {
    // Children first: billings reference subscriptions, which reference plans.
    const billings = await sandboxDelete(executor, 'billings', merchantId);
    const links = await sandboxDelete(executor, 'card_update_links', merchantId);
    const subscriptions = await sandboxDelete(executor, 'subscriptions', merchantId);
    return { card_update_links: links, billings, subscriptions, plans: await sandboxDelete(executor, 'plans', merchantId) };
  }

  /** The billing engine's charge job (src/root/context.ts registers it). */
  jobs(): JobDefinition[] {
    // A batch kind: the charges claimed together are charged together (./charge-batch.ts), in
    // batches of CHARGE_BATCH, BILLING_CONCURRENCY of them in flight.
    const concurrency = this.deps.chargeConcurrency ?? DEFAULT_CHARGE_CONCURRENCY;
    const batch = { size: Math.min(CHARGE_BATCH, concurrency), concurrency, handler: (payloads: ChargePayload[]) => this.engine.chargeBatch(payloads) };
    return [{ kind: CHARGE_JOB, batch }, ...this.pixCycles.jobs(), ...cardExpiringJobs(this.deps, this.engine)];
  }
}
