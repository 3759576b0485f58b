import { Type } from '@sinclair/typebox';
import { CEP_PATTERN, STATES } from '../../domain/address.js';
import { ADDRESS_TEXT_MAX } from './address.js';
import { SCOPES } from './service.js';

/** A merchant's address, bounded as the API Pix bounds a receiver's (`logradouro`, `cidade`, `uf`, `cep`). */
export const MerchantAddress = Type.Object({
  street: Type.String({ minLength: 1, maxLength: ADDRESS_TEXT_MAX, description: 'Street, number and district on one line (API Pix logradouro)' }),
  city: Type.String({ minLength: 1, maxLength: ADDRESS_TEXT_MAX }),
  state: Type.Unsafe<string>({ type: 'string', enum: [...STATES], description: 'Federative unit (UF), upper case' }),
  zipCode: Type.String({ pattern: CEP_PATTERN, maxLength: 8, description: 'CEP, 8 digits, no mask' }),
});

export const Merchant = Type.Object({
  merchantId: Type.String({ maxLength: 20 }),
  accountNumber: Type.Integer({ minimum: 1 }),
  name: Type.String(),
  documentNumber: Type.String(),
  legalName: Type.Union([Type.String(), Type.Null()]),
  email: Type.Union([Type.String(), Type.Null()]),
  address: Type.Union([MerchantAddress, Type.Null()], { description: "Null when registered without one: a sandbox charge's location then names the sandbox's default address" }),
  createdDate: Type.String({ format: 'date-time' }),
});

export const CardSettings = Type.Object({
  verifyCardsOnSubscribe: Type.Boolean({ description: "Check a subscription's stored card with a zero auth before creating the subscription (default false)" }),
});

export { MerchantIdParams } from '../../http/merchant-id-params.js';

export const Scope = Type.Union(SCOPES.map((s) => Type.Literal(s)));
