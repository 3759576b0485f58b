import { Type } from '@sinclair/typebox';

const Environment = Type.Union([Type.Literal('production'), Type.Literal('sandbox')], {
  description: "Which return-code table applies: Cielo's sandbox answers with codes of its own. Default: sandbox when the API URL's host says so.",
});

export const AcquirerConnectionBody = Type.Object({
  provider: Type.Literal('cielo'),
  merchantId: Type.String({ minLength: 1, maxLength: 64, description: "The merchant's Cielo MerchantId" }),
  merchantKey: Type.String({ minLength: 1, maxLength: 128, description: 'Its MerchantKey: stored encrypted, never shown again' }),
  apiUrl: Type.Optional(Type.String({ maxLength: 500, description: "Default Cielo's production API; http is allowed (an operator's own proxy)" })),
  queryUrl: Type.Optional(Type.String({ maxLength: 500, description: "Default Cielo's production query API" })),
  environment: Type.Optional(Environment),
});

export const AcquirerConnection = Type.Object({
  provider: Type.Literal('cielo'),
  merchantId: Type.String(),
  merchantKeyLast4: Type.String(),
  apiUrl: Type.String(),
  queryUrl: Type.String(),
  environment: Environment,
  updatedAt: Type.String({ format: 'date-time' }),
});
