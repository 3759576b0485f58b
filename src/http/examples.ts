/**
 * The request-body examples the OpenAPI document shows (and "Try it out" pre-fills), one per
 * operationId. Each is valid as written: test/http/openapi-examples.test.ts sends every example
 * of the document to a running sandbox and requires a 2xx, with the ids below (the demo
 * merchant's, as `npm start` prints them) swapped for real ones made in that sandbox.
 */
export const EXAMPLE_IDS = {
  merchantId: 'mer_tvwry6j76y1bsf3k',
  userName: 'usr_cyqbkx0u4c5l6rwh',
  password: 'Hxd4lhj8eW3UGk840kcOiZnK',
  numberToken: '0b9d5f3c-5e1a-4c1e-9a57-7f3b6f1d2c4e',
  vaultId: '6d2f1c8e-3b4a-4f7e-8c1d-2a9b0e5f7c3d',
  planId: 'c4a1e9f2-7b3d-4e8a-9f1c-5d2b6e0a8f47',
} as const;

const ID = EXAMPLE_IDS;

export const EXAMPLES = {
  createGatewayToken: { userName: ID.userName, password: ID.password },
  loginIntegration: { userName: ID.userName, password: ID.password },
  createMerchant: {
    name: 'Loja Exemplo',
    documentNumber: '11222333000181',
    legalName: 'Loja Exemplo Ltda',
    email: 'financeiro@loja.example',
    address: { street: 'Rua Augusta, 1500, Consolação', city: 'São Paulo', state: 'SP', zipCode: '01304001' },
  },
  setMerchantAddress: { street: 'Avenida Afonso Pena, 1212, Centro', city: 'Belo Horizonte', state: 'MG', zipCode: '30130003' },
  setMerchantCardSettings: { verifyCardsOnSubscribe: true },
  zeroAuth: { cardNumber: '5555555555554444', expirationMonth: '12', expirationYear: '2035', securityCode: '123', cardholderName: 'MARIA SILVA' },
  createCredential: { scopes: ['payments', 'recurrence', 'integration'], allowedIps: ['203.0.113.0/24'] },
  updateAntifraudSettings: { velocity: { maxPerCard: 5 }, checkIpCountry: true },
  addBlocklistEntry: { kind: 'email', value: 'chargeback@fraud.example', reason: 'Chargeback on order 981' },
  replaceIpCountries: { ranges: [{ cidr: '203.0.113.0/24', country: 'BR' }, { cidr: '198.51.100.0/24', country: 'US' }] },
  updatePricing: { mdr: { credit1x: 2.99, credit2to6: 3.49 }, transactionFee: 0.3, prepayment: { monthlyRate: 1.99 } },
  createCardToken: { cardNumber: '4111111111111111', expirationMonth: '12', expirationYear: '2030', securityCode: '123' },
  createVaultCard: { cardNumber: '5555555555554444', expirationMonth: '12', expirationYear: '2035', cardholderName: 'MARIA SILVA' },
  createPayment: {
    payment: { transactionType: 'credit', amount: 15000, productType: 'lojista', installments: 3 },
    sellerInfo: { codeAntiFraud: '3fa85f64-5717-4562-b3fc-2c963f66afa6' },
    cardInfo: { numberToken: ID.numberToken, cardholderName: 'MARIA SILVA' },
    customer: { documentType: 'cpf', documentNumber: '52998224725', email: 'maria@example.com' },
    referenceTransaction: 'order-1001',
  },
  createPaymentLink: { description: 'Guitar course, 12 lessons', value: 450.0, qttyInstallments: 3, expirationDate: '2030-12-31T23:59:59-03:00', message: 'Thank you!' },
  createPrepayment: { all: true },
  createPixCharge: { amount: 2500, description: 'Order 1001', expiresIn: 3600, referenceTransaction: 'order-1001' },
  createPlan: { name: 'Gold', description: 'Gold, monthly', amount: 49.9, planType: 'Monthly', paymentMethod: 'CreditCard', trialDays: 7, attempts: 2 },
  updatePlan: { merchantId: ID.merchantId, name: 'Gold', description: 'Gold, monthly, with support', amount: 49.9, planType: 'Monthly', paymentMethod: 'CreditCard', trialDays: 7, attempts: 2 },
  changePlanStatus: { status: 'Inactive' },
  createSubscription: { planId: ID.planId, vaultId: ID.vaultId, orderNumber: 'A-1001' },
  changeSubscriptionStatus: { status: 'Canceled' },
  swapSubscriptionVault: { vaultId: ID.vaultId },
  issueBankSlip: {
    value: 150.0,
    dueDate: '2030-12-20',
    pix: true,
    payer: { document: '52998224725', name: 'Maria Silva', streetAndNumber: 'Rua das Flores, 123', zipCode: '01310100', city: 'Sao Paulo', state: 'SP', neighborhood: 'Bela Vista' },
    referenceCode: 'invoice-2030-77',
  },
  sandboxPayBankSlip: { value: 150.0 },
  createWebhookSubscription: { url: 'https://shop.example/hooks', basicAuth: 'c2hvcDpzM2NyZXQ=' },
  advanceSandboxClock: { days: 7 },
  setSandboxVaultOutcome: { returnCode: '51' },
} as const;

export type ExampleOperation = keyof typeof EXAMPLES;
