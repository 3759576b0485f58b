import { INSTALLMENTS_FEE, installmentPlan, LINK_VALUE } from '../../domain/installments.js';
import { parseDecimal } from '../../domain/money.js';
import { invalid, type ErrorItem } from '../../domain/errors.js';
import type { CreatePaymentLinkBody } from './schemas.js';

/** A link's terms, parsed and checked: what the table stores. */
export interface LinkTerms {
  description: string;
  /** Cents. */
  value: bigint;
  qttyInstallments: number | null;
  qttyInstallmentsCustom: number[] | null;
  qttyInstallmentsIntFree: number;
  /** Percent a month scaled by 10^4. */
  installmentsFee: bigint;
  expirationDate: Date;
  message: string | null;
}

/** The installment counts a link offers, ascending. */
export function offeredCounts(terms: { qttyInstallments: number | null; qttyInstallmentsCustom: number[] | null }): number[] {
  if (terms.qttyInstallmentsCustom) return [...terms.qttyInstallmentsCustom].sort((a, b) => a - b);
  return Array.from({ length: terms.qttyInstallments ?? 1 }, (_, i) => i + 1);
}

/**
 * The rules of contract section 7 a JSON schema cannot say, every problem in one 400:
 * exactly one of qttyInstallments and qttyInstallmentsCustom; the interest-free count within
 * 1..the largest offered count; value > 0 in cents; fee 0..100; expiration in the future
 * (business time); and every offered plan chargeable (>= 1 cent per installment, total within
 * the 10-digit payment amount).
 */
export function checkLinkTerms(body: CreatePaymentLinkBody, now: Date): LinkTerms {
  const errors: ErrorItem[] = [];
  const error = (tag: string, description: string) => errors.push({ tag, description });

  const hasMax = body.qttyInstallments !== undefined;
  const hasCustom = body.qttyInstallmentsCustom !== undefined;
  if (hasMax === hasCustom) {
    error(hasMax ? 'qttyInstallmentsCustom' : 'qttyInstallments', 'Send exactly one of qttyInstallments and qttyInstallmentsCustom.');
  }
  const counts = offeredCounts({ qttyInstallments: body.qttyInstallments ?? null, qttyInstallmentsCustom: body.qttyInstallmentsCustom ?? null });
  const largest = counts[counts.length - 1];

  const value = parseDecimal(body.value, LINK_VALUE);
  if (!value.ok) error('value', 'value must be greater than 0, with at most 2 decimals and at most 99999999.99.');

  const fee = body.installmentsFee === undefined ? ({ ok: true, value: 0n } as const) : parseDecimal(body.installmentsFee, INSTALLMENTS_FEE);
  if (!fee.ok) error('installmentsFee', 'installmentsFee must be a percent from 0 to 100 with at most 4 decimals.');

  // Without a fee nothing bears interest; with one, the fee applies from 2 installments on.
  const intFree = body.qttyInstallmentsIntFree ?? (fee.ok && fee.value > 0n ? 1 : largest);
  if (intFree < 1 || intFree > largest) {
    error('qttyInstallmentsIntFree', `qttyInstallmentsIntFree must be between 1 and ${largest}, the largest installment count offered.`);
  }

  const expirationDate = new Date(body.expirationDate);
  if (!(expirationDate.getTime() > now.getTime())) error('expirationDate', `expirationDate must be after ${now.toISOString()}.`);

  if (value.ok && fee.ok && errors.length === 0) {
    for (const count of counts) {
      const plan = installmentPlan(value.value, count, intFree, fee.value);
      if (plan.installments.some((cents) => cents < 1n)) {
        error('value', `value is too small for ${count} installments: each must be at least 0.01.`);
        break;
      }
      if (plan.total > LINK_VALUE.max!) {
        error('value', `With interest, ${count} installments would charge more than 99999999.99.`);
        break;
      }
    }
  }

  if (errors.length || !value.ok || !fee.ok) throw invalid(errors);
  return {
    description: body.description,
    value: value.value,
    qttyInstallments: body.qttyInstallments ?? null,
    qttyInstallmentsCustom: body.qttyInstallmentsCustom ?? null,
    qttyInstallmentsIntFree: intFree,
    installmentsFee: fee.value,
    expirationDate,
    message: body.message ?? null,
  };
}
