// "Your first five minutes" with the TypeScript SDK (sdk/): the same calls as the curl session,
// typed from the OpenAPI document. Run from the repository root, with your printed values:
//   USER=usr_... PASS=... ADMIN=adm_... npx tsx examples/sdk-quickstart.ts
import { createGatewayClient } from '../sdk/src/index.js';

const gateway = createGatewayClient({
  baseUrl: process.env.GATEWAY_URL ?? 'http://localhost:8080',
  userName: process.env.USER_NAME ?? process.env.USER!,
  password: process.env.PASS!,
  adminKey: process.env.ADMIN, // only for /sandbox and /admin
});

// 1-2. the token is fetched on first use (and renewed before it expires): who am I?
const { data: me } = await gateway.GET('/gateway/v1/me');
console.log(me?.name, me?.scopes);

// 4. a card payment: tokenize a test card, then pay with the token (amount in cents).
// Each POST carries a fresh Idempotency-Key; give your own to make a retry safe.
const { data: card } = await gateway.POST('/gateway/v1/tokens/cards', {
  body: { cardNumber: '4111111111111111', expirationMonth: '12', expirationYear: '2030', securityCode: '123' },
});
const order = `order-${Date.now()}`;
const { data: payment, error } = await gateway.POST('/gateway/v1/payments', {
  headers: { 'Idempotency-Key': order },
  body: {
    payment: { transactionType: 'credit', amount: 15000, productType: 'lojista', installments: 3 },
    sellerInfo: { codeAntiFraud: '3fa85f64-5717-4562-b3fc-2c963f66afa6' },
    cardInfo: { numberToken: card!.numberToken, cardholderName: 'MARIA SILVA' },
    customer: { documentType: 'cpf', documentNumber: '52998224725', email: 'maria@example.com' },
    referenceTransaction: order,
  },
});
if (error) throw new Error(JSON.stringify(error)); // the error array: [{tag, description}]
console.log(payment!.paymentId, payment!.status, payment!.returnCode);

// Read it back
const { data: again } = await gateway.GET('/gateway/v1/payments/{paymentId}', { params: { path: { paymentId: payment!.paymentId } } });
console.log(again!.status);

// 5. the sandbox clock (operator key)
const { data: clock } = await gateway.GET('/sandbox/clock');
console.log(clock?.now);
