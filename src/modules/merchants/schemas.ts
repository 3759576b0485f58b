import { Type } from '@sinclair/typebox';
import { SCOPES } from './service.js';

export const Merchant = Type.Object({
  merchantId: Type.String({ maxLength: 20 }),
  accountNumber: Type.Integer({ minimum: 1 }),
  name: Type.String(),
  documentNumber: Type.String(),
  legalName: Type.Union([Type.String(), Type.Null()]),
  email: Type.Union([Type.String(), Type.Null()]),
  createdDate: Type.String({ format: 'date-time' }),
});

export { MerchantIdParams } from '../../http/params.js';

export const Scope = Type.Union(SCOPES.map((s) => Type.Literal(s)));
