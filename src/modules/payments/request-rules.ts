import ipaddr from 'ipaddr.js';
import { documentType, isValidCpfOrCnpj } from '../../domain/documents.js';
import { parseDecimal, SPLIT_PERCENT } from '../../domain/money.js';
import { invalid, type ErrorItem } from '../../domain/errors.js';
import { DEVICE_FIELDS, externalProblems, type AuthenticationType } from '../../domain/three-ds.js';
import type { DeviceInfo } from '../../threeds/types.js';
import type { PaymentBody } from './schemas.js';
import type { ThreeDsPlan, ThreeDsState } from './three-ds-state.js';

export interface ParsedSplit {
  documentNumberBeneficiary: string;
  type: 'bruto' | 'liquido';
  /** Hundredths of a percent: 33.33 % = 3333n. */
  percent: bigint;
}

/** A payment request, checked before anything is written: its splits parsed, and what 3-D Secure asks of it. */
export interface CheckedRequest {
  splits: ParsedSplit[];
  threeDs: ThreeDsPlan;
}

/**
 * Checks a payment request (the rules below, then its 3-D Secure blocks, each set of problems
 * one 400). `sandbox`: a returnUrl may be plain http; `hasServer`: a 3DS server is configured.
 */
export function checkPaymentRequest(body: PaymentBody, options: { sandbox: boolean; hasServer: boolean }): CheckedRequest {
  const splits = checkPaymentRules(body);
  return { splits, threeDs: planThreeDs(body, options) };
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

  if (errors.length) throw invalid(errors);
  return splits;
}

/**
 * Checks the `threeDs` and `deviceInfo` blocks (a 400 naming the field, before anything is
 * recorded) and answers the plan. `hasServer`: a 3DS server is configured.
 */
export function planThreeDs(body: PaymentBody, options: { sandbox: boolean; hasServer: boolean }): ThreeDsPlan {
  const asked = body.threeDs;
  if (!asked) return { kind: 'none' };
  const problems: [string, string][] = [];
  if (asked.returnUrl !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(asked.returnUrl);
    } catch {
      problems.push(['threeDs.returnUrl', 'returnUrl must be an absolute URL.']);
    }
    if (url && url.protocol !== 'https:' && !(options.sandbox && url.protocol === 'http:')) {
      problems.push(['threeDs.returnUrl', options.sandbox ? 'returnUrl must be an http(s) URL.' : 'returnUrl must be an https URL.']);
    }
  }
  if (asked.dataOnly && asked.external) problems.push(['threeDs.dataOnly', 'dataOnly sends the data with no authentication: it cannot come with an external authentication.']);
  if (asked.external) problems.push(...externalProblems(asked.external));
  const state: ThreeDsState = {
    authenticationType: (asked.authenticationType ?? '01') as AuthenticationType,
    ...(asked.code3DS !== undefined ? { code3DS: asked.code3DS } : {}),
    ...(asked.returnUrl !== undefined ? { returnUrl: asked.returnUrl } : {}),
  };
  const runs = !asked.external && !asked.dataOnly;
  if (runs) {
    if (!options.hasServer) problems.push(['threeDs', 'This gateway has no 3DS server configured (THREEDS_SERVER): send an external authentication or dataOnly.']);
    const device = body.deviceInfo as Partial<DeviceInfo> | undefined;
    if (!device) problems.push(['deviceInfo', 'deviceInfo is required when the gateway authenticates the buyer.']);
    else for (const field of DEVICE_FIELDS) if (device[field] === undefined || device[field] === '') problems.push([`deviceInfo.${field}`, `deviceInfo.${field} is required when the gateway authenticates the buyer.`]);
  }
  if (problems.length) throw invalid(problems.map(([tag, description]) => ({ tag, description })));
  if (asked.external) {
    const { cavv, eci, version, xid, dsTransactionId } = asked.external;
    return { kind: 'external', state: { ...state, external: true, cavv, eci, version, ...(xid ? { xid } : {}), ...(dsTransactionId ? { dsTransactionId } : {}) } };
  }
  if (asked.dataOnly) return { kind: 'dataOnly', state: { ...state, dataOnly: true } };
  // EMVCo's numeric browser fields are strings; a number sent for one is taken as its digits.
  const device = Object.fromEntries(Object.entries(body.deviceInfo!).map(([k, v]) => [k, typeof v === 'number' ? String(v) : v])) as unknown as DeviceInfo;
  return { kind: 'authenticate', state, device };
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
