import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { EXAMPLES } from '../../http/examples.js';
import type { BillingStatus as BillingStatusName, SubscriptionStatus as SubscriptionStatusName } from '../../domain/lifecycles.js';

const Nullable = <T extends import('@sinclair/typebox').TSchema>(t: T) => Type.Union([t, Type.Null()]);

// Spelled out so the handlers see the literal types.
export const PlanType = Type.Union([
  Type.Literal('Monthly'),
  Type.Literal('Bimonthly'),
  Type.Literal('Quarterly'),
  Type.Literal('Semesterly'),
  Type.Literal('Yearly'),
  Type.Literal('Custom'),
]);
export const PlanStatus = Type.Union([Type.Literal('Active'), Type.Literal('Inactive'), Type.Literal('Canceled')]);
export const SubscriptionStatus = Type.Union((['Active', 'Blocked', 'Canceled', 'Finished'] as const satisfies readonly SubscriptionStatusName[]).map((s) => Type.Literal(s)));
export const BillingStatus = Type.Union((['Opened', 'PaymentInvalid', 'Canceled', 'Denied', 'Paid'] as const satisfies readonly BillingStatusName[]).map((s) => Type.Literal(s)));

/** The seed's Plan fields on create (and update, where merchantId is required too). */
const planFields = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  description: Type.String({ maxLength: 255 }),
  amount: Type.Union([Type.Number(), Type.String({ maxLength: 30 })], {
    description: 'Amount of one installment: up to 12 integer digits and 6 decimals (a JSON number; a string keeps more than 15 digits exact). Charged rounded half-up to cents, 0.01 to 99999999.99.',
  }),
  planType: PlanType,
  trialDays: Type.Optional(Type.Integer({ minimum: 0, maximum: 3650, description: 'Days before billing 1; default 0' })),
  paymentMethod: Type.Union([Type.Literal('CreditCard'), Type.Literal('Pix')], {
    description: 'CreditCard (a stored card charged by the acquirer) or Pix (Pix Automático: the payer authorizes the recurrence in their bank app; Monthly, Quarterly, Semesterly, Yearly or Custom with interval 7 only)',
  }),
  interval: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650, description: "Custom only (required, >= 20 days); fixed types set it (sending the type's own value is accepted)" })),
  // Null is accepted (it is what GET answers for a plan without end), so a plan read back can be posted as an update.
  installments: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 9999, description: 'Custom only (required, >= 1); fixed types have no end (omit it or send null)' }))),
  attempts: Type.Optional(Type.Integer({ minimum: 0, maximum: 4, description: 'Card plans: retries after insufficient funds (51), 0..4; default 0. A Pix plan follows the API Pix retry policy instead (see `pix`).' })),
};

export const PlanCreateBody = Type.Object({
  merchantId: Type.Optional(Type.String({ maxLength: 20, description: 'Default: the merchant of the token' })),
  ...planFields,
}, { examples: [EXAMPLES.createPlan] });
export const PlanUpdateBody = Type.Object({ merchantId: Type.String({ maxLength: 20 }), ...planFields }, { examples: [EXAMPLES.updatePlan] });

export const Plan = Type.Object({
  id: Type.String(),
  merchantId: Type.String(),
  name: Type.String(),
  description: Type.String(),
  amount: Type.Number(),
  planType: Type.String(),
  trialDays: Type.Integer(),
  paymentMethod: Type.String(),
  interval: Type.Integer({ description: 'Days between billings' }),
  installments: Nullable(Type.Integer({ description: 'Billings in all; null = no end' })),
  attempts: Type.Integer(),
  status: Type.String(),
  createdDate: Type.String({ description: 'ISO 8601 without zone (UTC wall time)' }),
  createdBy: Nullable(Type.String()),
  pix: Type.Optional(
    Type.Object(
      {
        periodicity: Type.String({ description: 'The API Pix periodicidade: SEMANAL, MENSAL, TRIMESTRAL, SEMESTRAL or ANUAL' }),
        retryPolicy: Type.String({ description: 'The API Pix politicaRetentativa the recurrences of this plan ask: PERMITE_3R_7D' }),
        maxRetries: Type.Integer({ description: 'Retries of a failed cycle, after its due date' }),
        retryWindowDays: Type.Integer({ description: 'Days after the due date the retries fall in' }),
        retryDays: Type.Array(Type.Integer(), { description: 'Days after the due date of each retry' }),
        cobrWindowDays: Type.Object({ from: Type.Integer(), to: Type.Integer() }, { description: "Days before the due date each cycle's charge (cobr) is sent in" }),
      },
      { description: 'Extension, Pix plans only: the Pix Automático rules the plan follows (its `attempts` does not apply)' },
    ),
  ),
});

export const PixAuthorization = Type.Object(
  {
    recurrenceId: Type.String({ description: 'The API Pix idRec' }),
    status: Type.String({ description: 'The recurrence at the PSP: CRIADA (awaiting the payer), APROVADA, REJEITADA, EXPIRADA or CANCELADA' }),
    pixEmv: Type.String({ description: "The journey-3 composite BR Code (copy and paste / QR): the first charge's location in ID 26 and the recurrence's (its locrec) in ID 80; the payer pays the one and authorizes the other" }),
    expiresAt: Type.String({ format: 'date-time', description: 'The code is valid until then' }),
    reason: Nullable(Type.String({ description: 'Why it was refused, expired or cancelled' })),
    canceledBy: Nullable(Type.String({ description: 'payer or merchant, once CANCELADA' })),
  },
  { description: 'Extension, Pix subscriptions only' },
);

export const Subscription = Type.Object({
  id: Type.String(),
  vaultId: Nullable(Type.String({ description: 'Null for a Pix subscription' })),
  orderNumber: Type.String(),
  status: Type.String({ description: 'Active, Blocked, Canceled or Finished; PendingAuthorization while a Pix subscription awaits the payer' }),
  canceledReason: Type.Optional(Nullable(Type.String({ description: 'Extension, Pix subscriptions: why it was canceled (refused, expired, cancelled by the payer or the merchant)' }))),
  pixAuthorization: Type.Optional(PixAuthorization),
  payer: Type.Optional(Type.Object({ documentNumber: Type.String(), name: Type.String() })),
  blockedReason: Type.Optional(Nullable(Type.String({ description: 'Extension, Blocked only: why the charge that blocked it failed (its return message)' }))),
  blockedReturnCode: Type.Optional(Nullable(Type.String({ description: 'Extension, Blocked only: the return code of that charge (46, 41, 43, 78)' }))),
  plan: Plan,
  createdBy: Nullable(Type.String()),
  createdDate: Type.String({ format: 'date-time' }),
});

const billingFields = {
  id: Type.String(),
  status: Type.String(),
  expireAt: Type.String({ format: 'date-time', description: 'Due date: the first charge; retries at +2, +4, +8, +16 days' }),
  amount: Type.Number(),
  installment: Type.Integer(),
  subscription: Subscription,
  createdBy: Nullable(Type.String()),
  createdDate: Type.String({ format: 'date-time' }),
  modifiedBy: Nullable(Type.String()),
  modifiedDate: Nullable(Type.String({ format: 'date-time' })),
};
export const Billing = Type.Object(billingFields);
export const BillingDetail = Type.Object({
  ...billingFields,
  attemptsHistory: Type.Array(
    Type.Object({
      date: Type.String({ format: 'date-time' }),
      returnCode: Nullable(Type.String()),
      returnMessage: Type.String(),
      paymentId: Nullable(Type.String()),
      declineCategory: Type.Optional(Type.Union([Type.Literal('retryable'), Type.Literal('final')], { description: 'A declined attempt: whether the card may be tried again (ABECS Normativo 21)' })),
    }),
  ),
});

/** Plan, subscription and billing ids are GUIDs: a malformed one is 400 (as a payment link's), an unknown one 404. */
const Id36 = Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$', description: 'GUID' });
export const PlanIdParams = Type.Object({ planId: Id36 });
export const SubscriptionIdParams = Type.Object({ subscriptionId: Id36 });
export const BillingIdParams = Type.Object({ billingId: Id36 });

/** The seed answers these as a bare JSON string. */
export const IdString = Type.String({ description: 'The id, as a JSON string' });
export const IdObject = Type.Object({ id: Type.String() });

/** Sends `"<id>"` as JSON (a plain string would go out as text/plain). */
export function sendJsonString(reply: FastifyReply, status: number, value: string) {
  return reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify(value));
}


export const CardUpdateLink = Type.Object({
  url: Type.String({ description: 'The hosted page where the customer enters a new card; it works once' }),
  expiresAt: Type.String({ format: 'date-time' }),
});

/** The card update page's form (application/x-www-form-urlencoded). */
export const CardUpdateForm = Type.Object({
  cardNumber: Type.String({ maxLength: 19 }),
  expirationMonth: Type.String({ maxLength: 2 }),
  expirationYear: Type.String({ maxLength: 4 }),
  securityCode: Type.Optional(Type.String({ maxLength: 4 })),
  cardholderName: Type.String({ maxLength: 30 }),
  lang: Type.Optional(Type.String({ maxLength: 5 })),
});
