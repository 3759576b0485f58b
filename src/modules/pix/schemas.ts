import { Type } from '@sinclair/typebox';

export const PixChargeBody = Type.Object({
  amount: Type.Integer({ minimum: 1, maximum: 99_999_999, description: 'Cents (conciliation values have 6 integer digits)' }),
  description: Type.Optional(Type.String({ minLength: 1, maxLength: 140 })),
  expiresIn: Type.Optional(Type.Integer({ minimum: 60, maximum: 2_592_000, default: 3600, description: 'Seconds, default 3600' })),
  referenceTransaction: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
});

const NullableString = Type.Union([Type.String(), Type.Null()]);

export const PixCharge = Type.Object({
  id: Type.String(),
  txid: Type.String(),
  pixEmv: Type.String({ description: 'BR Code "copia e cola" (dynamic, CRC16 checked)' }),
  status: Type.Union([Type.Literal('Pending'), Type.Literal('Paid'), Type.Literal('Expired')]),
  amount: Type.Integer(),
  description: NullableString,
  referenceTransaction: NullableString,
  expiresAt: Type.String({ format: 'date-time' }),
  paidAt: NullableString,
  createdAt: Type.String({ format: 'date-time' }),
});

export const PixChargeParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 36 }) });
