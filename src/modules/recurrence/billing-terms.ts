import type { Executor } from '../../db/connection.js';
import type { NewJob } from '../../jobs/queue.js';
import type { BusinessEvent } from '../webhooks/outbox.js';
import type { ChargeState } from './billings-repository.js';

/**
 * The billing engine's terms, shared by the engine (./engine.ts) and the charge of a batch
 * (./charge-batch.ts, ./charge-record.ts), which the engine runs.
 */
export const CHARGE_JOB = 'billing.charge';
export interface ChargePayload {
  billingId: string;
  /** 0 = the first charge at the due date, k = the k-th retry. */
  attempt: number;
}
/** One job per billing attempt: a second enqueue (a replay, two instances) is a no-op. */
export const chargeKey = (billingId: string, attempt: number) => `${CHARGE_JOB}:${billingId}:${attempt}`;

/** A Pix billing's cobr is sent to the PSP in its window before the due date (./pix-cycles.ts runs it). */
export const PIX_SEND_JOB = 'billing.pix.send';

/** The plan terms a billing's end needs, read with the billing. */
export const planCycleOf = (state: Pick<ChargeState, 'plan_amount' | 'interval_days' | 'plan_installments' | 'plan_payment_method'>): PlanCycle => ({
  amount: state.plan_amount,
  interval_days: state.interval_days,
  installments: state.plan_installments,
  payment_method: state.plan_payment_method,
});

/** The plan terms the engine needs when a billing ends. */
export interface PlanCycle {
  amount: number;
  interval_days: number;
  installments: number | null;
  /** Pix: the next billing's charge is a cobr sent in its window (./pix-cycles.ts). */
  payment_method?: string;
}

/** How a new billing is charged: a card charge job at its due date, a Pix cobr sent before it, or nothing yet (a Pix billing 1, paid with the authorization). */
export type ChargeBy = 'card' | 'pix' | 'none';

/** What a billing's end needs to know about it. */
export type EndedBilling = Pick<ChargeState, 'billing_id' | 'merchant_id' | 'subscription_id' | 'installment' | 'expire_at' | 'account_number' | 'plan_id'>;

/** A billing that ended, with what decides what follows it. */
export interface Ending {
  billing: EndedBilling;
  plan: PlanCycle;
  subscriptionStatus: string;
}

/** A billing to issue (see `issue`). */
export interface NewBilling {
  sub: { subscription_id: string; merchant_id: string; account_number: number };
  amount: number;
  installment: number;
  dueAt: Date;
  by: string;
  chargeBy: ChargeBy;
}

/**
 * The events and jobs a change writes besides its rows, gathered and written at the end of its
 * transaction (`flush`): a batch of billings writes its events in one statement and its jobs in
 * another, whatever its size.
 */
export interface Outbox {
  events: BusinessEvent[];
  jobs: NewJob[];
}

/** What the charge of a batch asks of the engine: its writes (BillingEngine). */
export interface EngineWrites {
  emit(trx: Executor, events: BusinessEvent[]): Promise<void>;
  flush(trx: Executor, outbox: Outbox): Promise<void>;
  afterEnds(trx: Executor, endings: readonly Ending[], outbox: Outbox): Promise<void>;
}
