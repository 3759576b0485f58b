import { ApiError } from './errors.js';
import type { Principal } from './principal.js';

/**
 * A merchant sees only its own objects (contract section 2). An `accountNumber`, `mid` or
 * body `merchantId` that is not the caller's is 403; a malformed one is 400. Ids of objects
 * (plans, vaults...) are looked up with the merchant in the WHERE clause, so foreign ids are 404.
 */
export function requireOwnAccount(principal: Principal, value: unknown, tag = 'query.accountNumber'): number {
  const text = String(value ?? '').trim();
  if (!/^[1-9]\d{0,17}$/.test(text)) throw new ApiError(400, tag, `${tag} must be a positive integer.`);
  if (Number(text) !== principal.accountNumber) throw new ApiError(403, 'forbidden', `${tag} is not the account of this credential.`);
  return principal.accountNumber;
}

export function requireOwnMerchantId(principal: Principal, value: unknown, tag: string): string {
  if (typeof value !== 'string' || !/^[A-Za-z0-9_-]{1,20}$/.test(value)) {
    throw new ApiError(400, tag, `${tag} must be a merchant id of at most 20 characters.`);
  }
  if (value !== principal.merchantId) throw new ApiError(403, 'forbidden', `${tag} is not the merchant of this credential.`);
  return value;
}
