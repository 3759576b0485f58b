import { nextRetryDate } from '../../domain/retry-schedule.js';
import type { DeclineCategory } from '../../domain/decline-category.js';

/** What a charge attempt's payment ended as (the payments row, or the 201 answer). */
export interface PaymentSnapshot {
  status: string;
  returnCode: string | null;
  /** The decline's category from the connector's table: a `final` one is never retried. */
  declineCategory?: DeclineCategory | null;
}

export type Decision =
  | { kind: 'paid' }
  /** 51 with retries left: the billing stays Opened and is charged again at `at`. */
  | { kind: 'retry'; at: Date }
  | { kind: 'final'; status: 'Denied' | 'PaymentInvalid'; blockSubscription: boolean }
  /** The payment is Pending (the acquirer's answer was lost): the billing's charge job settles it; look again later. */
  | { kind: 'wait' }
  /** Held by anti-fraud review (payment Blocked): void the authorization, then Denied. */
  | { kind: 'void' };

export interface AttemptContext {
  /** The billing's due date D (expireAt). */
  dueDate: Date;
  /** Failed charges so far, this one included (= the attempt number + 1). */
  failuresSoFar: number;
  /** The plan's retry allowance, 0..4. */
  attempts: number;
}

/**
 * Contract section 8's outcome table:
 * - 00 (Authorized) -> Paid;
 * - 51 -> retry at D + 2^k while k <= attempts, else Denied;
 * - 46 (card cancelled), 41 (lost), 43 (stolen), 78 (blocked) -> Denied, no retry, subscription
 *   Blocked: the card will not work again, so charging it next cycle is pointless (the
 *   contract names 46; every code that says the same is treated alike, whichever acquirer
 *   answered);
 * - 96 (the acquirer failed, nothing charged) -> PaymentInvalid;
 * - any other decline (05, 54, 59 anti-fraud reject...) -> Denied, no retry.
 * An anti-fraud Review holds an authorized payment (Blocked) for an operator. A billing runs
 * unattended, so holding it would leave the merchant's customer with an authorization the
 * billing cannot account for: the engine voids it and the billing is Denied, honestly
 * "nothing was charged". A payment already Canceled (voided) reads the same way.
 */
export function decide(payment: PaymentSnapshot, ctx: AttemptContext): Decision {
  switch (payment.status) {
    case 'Authorized':
    case 'Paid':
      return { kind: 'paid' };
    case 'Pending':
      return { kind: 'wait' };
    case 'Blocked':
      return { kind: 'void' };
    case 'Canceled':
      return { kind: 'final', status: 'Denied', blockSubscription: false };
  }
  switch (payment.returnCode) {
    case '51': {
      // The connector says this card will not work again (ABECS irreversible): never retried, whatever the code.
      if (payment.declineCategory === 'final') return { kind: 'final', status: 'Denied', blockSubscription: false };
      const at = nextRetryDate(ctx.dueDate, ctx.failuresSoFar, ctx.attempts);
      return at ? { kind: 'retry', at } : { kind: 'final', status: 'Denied', blockSubscription: false };
    }
    case '41':
    case '43':
    case '46':
    case '78':
      return { kind: 'final', status: 'Denied', blockSubscription: true };
    case '96':
      return { kind: 'final', status: 'PaymentInvalid', blockSubscription: false };
    default:
      return { kind: 'final', status: 'Denied', blockSubscription: false };
  }
}
