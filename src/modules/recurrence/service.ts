import type { JobHandlers } from '../../jobs/registry.js';
import { BillingService } from './billings-service.js';
import type { ChargeDeps } from './charge-attempt.js';
import { BillingEngine, CHARGE_JOB, type ChargePayload } from './engine.js';
import { PlanService } from './plans-service.js';
import { SubscriptionService } from './subscriptions-service.js';

/** Recurrence (contract section 8): plans, subscriptions, billings, and the engine that charges them. */
export class RecurrenceService {
  readonly engine: BillingEngine;
  readonly plans: PlanService;
  readonly subscriptions: SubscriptionService;
  readonly billings: BillingService;

  constructor(deps: ChargeDeps) {
    this.engine = new BillingEngine(deps);
    this.plans = new PlanService(deps.database, deps.clock);
    this.subscriptions = new SubscriptionService(deps.database, deps.clock, this.engine);
    this.billings = new BillingService(deps.database, deps.clock, this.engine);
  }

  registerJobs(handlers: JobHandlers): void {
    // Parallel: each billing's charge is independent of the others due at the same instant.
    handlers.register(CHARGE_JOB, async (payload: ChargePayload) => this.engine.charge(payload), { parallel: true });
  }
}
