import ipaddr from 'ipaddr.js';
import { documentType, isValidCpfOrCnpj } from '../../domain/documents.js';
import { parseDecimal, SPLIT_PERCENT } from '../../domain/money.js';
import { ApiError, type ErrorItem } from '../../http/errors.js';
import type { PaymentBody } from './schemas.js';

export interface ParsedSplit {
  documentNumberBeneficiary: string;
  type: 'bruto' | 'liquido';
  /** Hundredths of a percent: 33.33 % = 3333n. */
  percent: bigint;
}

/**
 * The rules of contract section 6 that a JSON schema cannot say. Every problem is reported in
 * one 400, each tagged with its field path.
 */
export function checkPaymentRules(body: PaymentBody): ParsedSplit[] {
  const errors: ErrorItem[] = [];
  const { payment, cardInfo, customer } = body;

  if ((payment.installments === 1) !== (payment.productType === 'avista')) {
    errors.push({ tag: 'payment.productType', description: 'productType must be avista for 1 installment and lojista for 2 to 12.' });
  }

  const sources = [cardInfo.numberToken, cardInfo.encryptedCard, cardInfo.vaultId].filter((s) => s !== undefined);
  if (sources.length !== 1) {
    errors.push({ tag: 'cardInfo', description: 'Send exactly one card source: numberToken, encryptedCard or vaultId.' });
  }

  if (body.urlCallBack !== undefined && !isHttpUrl(body.urlCallBack)) {
    errors.push({ tag: 'urlCallBack', description: 'urlCallBack must be an absolute http or https URL.' });
  }

  const splits: ParsedSplit[] = [];
  let total = 0n;
  (body.configSplit ?? []).forEach((split, i) => {
    const percent = parseDecimal(split.percent, SPLIT_PERCENT);
    if (!percent.ok) {
      errors.push({ tag: `configSplit[${i}].percent`, description: 'percent must be 0 to 100 with at most 2 decimals.' });
    } else {
      total += percent.value;
      splits.push({ documentNumberBeneficiary: split.documentNumberBeneficiary, type: split.type, percent: percent.value });
    }
    if (!isValidCpfOrCnpj(split.documentNumberBeneficiary)) {
      errors.push({ tag: `configSplit[${i}].documentNumberBeneficiary`, description: 'documentNumberBeneficiary must be a valid CPF or CNPJ, without mask.' });
    }
  });
  if (total > 10_000n) errors.push({ tag: 'configSplit', description: 'The split percents must add up to at most 100.' });

  if (customer?.documentNumber !== undefined) {
    const kind = documentType(customer.documentNumber);
    if (!kind) errors.push({ tag: 'customer.documentNumber', description: 'documentNumber must be a valid CPF or CNPJ, without mask.' });
    else if (customer.documentType && customer.documentType !== kind) {
      errors.push({ tag: 'customer.documentType', description: `documentType is ${customer.documentType} but documentNumber is a ${kind.toUpperCase()}.` });
    }
  }
  if (customer?.ipAddress !== undefined && !ipaddr.isValid(customer.ipAddress)) {
    errors.push({ tag: 'customer.ipAddress', description: 'ipAddress must be an IPv4 or IPv6 address.' });
  }

  if (errors.length) throw new ApiError(400, errors);
  return splits;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
