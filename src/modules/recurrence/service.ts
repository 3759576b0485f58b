import type { JobDefinition } from '../../jobs/registry.js';
import { BillingService } from './billings-service.js';
import type { ChargeDeps } from './charge-attempt.js';
import { BillingEngine, CHARGE_JOB, type ChargePayload } from './engine.js';
import { PlanService } from './plans-service.js';
import { PixCycles } from './pix-cycles.js';
import { SubscriptionService } from './subscriptions-service.js';
import { sandboxDelete, type ResetCounts, type ResetExecutor } from '../../db/sandbox-reset.js';

/** Recurrence (contract section 8): plans, subscriptions, billings, and the engine that charges them. */
export class RecurrenceService {
  readonly engine: BillingEngine;
  readonly plans: PlanService;
  readonly subscriptions: SubscriptionService;
  readonly billings: BillingService;
  /** Pix Automático's billings: ./pix-cycles.ts. */
  readonly pixCycles: PixCycles;

  constructor(deps: ChargeDeps) {
    this.engine = new BillingEngine(deps);
    this.pixCycles = new PixCycles(deps, this.engine);
    this.plans = new PlanService(deps.database, deps.clock, this.engine, deps.pixRecurrences, deps.logger);
    this.subscriptions = new SubscriptionService(deps.database, deps.clock, this.engine, deps.cards, deps.pixRecurrences);
    this.billings = new BillingService(deps.database, deps.clock, this.engine, deps.pixRecurrences);
  }

  /** Sandbox reset (src/modules/sandbox/reset-service.ts): this module's business rows, every merchant's or one's. */
  async resetSandboxData(executor: ResetExecutor, merchantId?: string): Promise<ResetCounts> {
    // Children first: billings reference subscriptions, which reference plans.
    const billings = await sandboxDelete(executor, 'billings', merchantId);
    const subscriptions = await sandboxDelete(executor, 'subscriptions', merchantId);
    return { billings, subscriptions, plans: await sandboxDelete(executor, 'plans', merchantId) };
  }

  /** The billing engine's charge job (src/context.ts registers it). */
  jobs(): JobDefinition[] {
    // Parallel: each billing's charge is independent of the others due at the same instant.
    return [{ kind: CHARGE_JOB, handler: async (payload: ChargePayload) => this.engine.charge(payload), parallel: true }, ...this.pixCycles.jobs()];
  }
}
