/**
 * Pix refunds (devoluções): what a charge may still return. The API Pix caps the sum of a
 * Pix's devoluções at the Pix itself, and several may be in flight at once, so what is in
 * flight counts as taken: a second request can never push the sum past the Pix, whatever the
 * first one's outcome.
 */
export interface RefundableCharge {
  status: string;
  /** Cents paid. */
  amount: bigint;
  /** Cents returned (devoluções made). */
  refunded: bigint;
  /** Cents of devoluções sent whose outcome is not known yet. */
  inProcess: bigint;
  /** Cents held by an open fraud claim (MED): not the merchant's to return meanwhile. */
  blocked?: bigint;
}

export type RefundAmount = { ok: true; amount: bigint } | { ok: false; tag: 'status' | 'amount'; message: string };

/** What a charge can still return now. */
export function refundableOf(charge: RefundableCharge): bigint {
  const left = charge.amount - charge.refunded - charge.inProcess - (charge.blocked ?? 0n);
  return left > 0n ? left : 0n;
}

/**
 * The amount a refund takes (what is left when none is asked), or why it cannot: `status` for a
 * charge that is not Paid, `amount` for an amount below a cent or above what is left.
 */
export function pixRefundAmountOf(charge: RefundableCharge, requested: bigint | undefined): RefundAmount {
  if (charge.status !== 'Paid') return { ok: false, tag: 'status', message: `A Pix charge in status ${charge.status} cannot be refunded; only a Paid one can.` };
  const left = refundableOf(charge);
  const amount = requested ?? left;
  if (amount < 1n) return { ok: false, tag: 'amount', message: left === 0n && requested === undefined ? 'Nothing is left to refund of this charge.' : 'amount must be at least 1 cent.' };
  if (amount > left) return { ok: false, tag: 'amount', message: `amount (${amount}) is more than what is left to refund of this charge (${left} cents).` };
  return { ok: true, amount };
}

/** A devolução id (API Pix: 1 to 35 alphanumerics) from a UUID: its 32 hex digits. */
export const devolucaoIdOf = (uuid: string): string => uuid.replace(/-/g, '');
