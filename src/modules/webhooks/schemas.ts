import { Type, type Static } from '@sinclair/typebox';
import { ListQuery } from '../../http/listing.js';
import { EXAMPLES } from '../../http/examples.js';

export const AccountQuery = Type.Object({ accountNumber: Type.String({ maxLength: 20, description: 'Your account number' }) });

export const SubscriptionBody = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 500, description: 'Absolute http(s) URL; https and a public address in production' }),
  basicAuth: Type.Optional(Type.String({ maxLength: 1024, description: 'Base64 of user:password, sent as Authorization: Basic; empty or absent for none' })),
  rotateSecret: Type.Optional(Type.Boolean({ description: 'Extension: replace the signing secret (by default a re-registration keeps it)' })),
  types: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
      maxItems: 64,
      description:
        'Extension: the event types delivered (docs/events.md), "*" for all. Absent: a new subscription receives TransactionStatus, InstallmentStatus and BankSlipStatus, a re-registration keeps its list',
    }),
  ),
}, { examples: [EXAMPLES.createWebhookSubscription] });
export type SubscriptionBody = Static<typeof SubscriptionBody>;

export const SubscriptionCreated = Type.Object({
  url: Type.String(),
  secret: Type.String({ description: 'Standard Webhooks signing secret: whsec_ + base64 of 32 bytes (the HMAC key is the decoded bytes)' }),
});

export const SubscriptionView = Type.Object({
  url: Type.String(),
  basicAuth: Type.Boolean({ description: 'Whether basic authentication credentials are registered (they are never shown)' }),
  types: Type.Array(Type.String(), { description: 'Extension: the event types delivered (docs/events.md)' }),
  createdDate: Type.String(),
  updatedDate: Type.String(),
});

export const DeliveryStatus = Type.Unsafe<'Pending' | 'Delivered' | 'Rejected' | 'Exhausted' | 'Canceled'>({
  type: 'string',
  enum: ['Pending', 'Delivered', 'Rejected', 'Exhausted', 'Canceled'],
  description: 'Canceled (extension): the subscription was removed before the notification was delivered',
});

export const DeliveriesQuery = Type.Composite([
  ListQuery,
  AccountQuery,
  Type.Object({
    status: Type.Optional(DeliveryStatus),
    channel: Type.Optional(Type.Unsafe<'webhook' | 'callback'>({ type: 'string', enum: ['webhook', 'callback'] })),
    startDate: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD, on the notification time (inclusive)' })),
    endDate: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD (inclusive)' })),
  }),
]);
export type DeliveriesQuery = Static<typeof DeliveriesQuery>;

export const Attempt = Type.Object({
  at: Type.String({ description: 'Business time of the attempt' }),
  url: Type.String({ description: 'Where it went (without the query string)' }),
  statusCode: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why no answer came: timeout, connection refused, address not allowed...' }),
  durationMs: Type.Integer(),
});

export const Delivery = Type.Object({
  movementId: Type.Integer(),
  channel: Type.String({ description: 'webhook (the account subscription) or callback (a payment urlCallBack)' }),
  type: Type.String({ description: 'TransactionStatus, InstallmentStatus, BankSlipStatus, an event type of docs/events.md; PaymentStatus for callbacks' }),
  status: DeliveryStatus,
  createdDate: Type.String(),
  nextAttemptAt: Type.Union([Type.String(), Type.Null()]),
  notification: Type.Record(Type.String(), Type.Unknown(), { description: 'The body sent, as sent' }),
  attempts: Type.Array(Attempt),
});
export type Delivery = Static<typeof Delivery>;

export const MovementParams = Type.Object({ movementId: Type.String({ pattern: '^[0-9]{1,15}$' }) });
