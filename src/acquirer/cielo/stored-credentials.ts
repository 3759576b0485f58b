import type { Initiator, ReplacementCard } from '../types.js';

/**
 * Stored-credential fields of a Cielo sale (Cielo's "Transaction Initiator Indicator (CIT and
 * MIT)" and "Renova Fácil" pages):
 * - `Payment.InitiatedTransactionIndicator {Category, Subcategory}`: C1 when the cardholder
 *   starts the charge, M1 when the merchant charges a stored card on a recurring agreement.
 *   The subcategory says why the credential is stored: `CredentialsOnFile` for a cardholder's
 *   charge, `Subscription` for a subscription's billing.
 * - `Payment.Recurrent: true` on the merchant's recurring charges: it is what lets Cielo answer a
 *   replaced card with `Payment.NewCard`.
 * - `CreditCard.CardOnFile {Usage, Reason}`: `First` when this charge stores the card, `Used` on a
 *   stored card; Reason `Recurring` for a subscription, `Unscheduled` otherwise.
 * - `Payment.IssuerTransactionId`: the network's reference of the first charge, on later
 *   merchant-initiated ones.
 */
export function storedCredentialFields(initiator: Initiator | undefined): { payment: Record<string, unknown>; creditCard: Record<string, unknown> } {
  if (initiator?.by === 'merchant') {
    return {
      payment: {
        Recurrent: true,
        InitiatedTransactionIndicator: { Category: 'M1', Subcategory: 'Subscription' },
        ...(initiator.networkReference ? { IssuerTransactionId: initiator.networkReference } : {}),
      },
      creditCard: { CardOnFile: { Usage: 'Used', Reason: 'Recurring' } },
    };
  }
  const storesCard = initiator?.storesCard ?? false;
  const storedCard = initiator?.storedCard ?? false;
  return {
    payment: { InitiatedTransactionIndicator: { Category: 'C1', Subcategory: 'CredentialsOnFile' } },
    creditCard: storesCard || storedCard ? { CardOnFile: { Usage: storesCard ? 'First' : 'Used', Reason: storesCard ? 'Recurring' : 'Unscheduled' } } : {},
  };
}

/** `Payment.NewCard` of a sale's answer (Renova Fácil), when it carries a usable number and expiry. */
export function replacementOf(raw: unknown): ReplacementCard | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const card = raw as { CardNumber?: unknown; ExpirationDate?: unknown };
  const pan = typeof card.CardNumber === 'string' ? card.CardNumber.trim() : '';
  const expiry = /^(0[1-9]|1[0-2])\/(\d{4})$/.exec(typeof card.ExpirationDate === 'string' ? card.ExpirationDate.trim() : '');
  if (!/^\d{12,19}$/.test(pan) || !expiry) return undefined;
  return { pan, expMonth: expiry[1], expYear: expiry[2] };
}
