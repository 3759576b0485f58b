import swagger, { type SwaggerTransformObject } from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';

export const ErrorArray = Type.Array(Type.Object({ tag: Type.String(), description: Type.String() }), {
  description: 'One entry per problem; tag is the field path for input errors, a short code otherwise.',
});

/** Common error answers for the routes' `response` maps, typed so handlers may send them. */
export function errorResponses<const S extends number[]>(...statuses: S): { [K in S[number]]: typeof ErrorArray } {
  return Object.fromEntries(statuses.map((s) => [s, ErrorArray])) as { [K in S[number]]: typeof ErrorArray };
}

/** Resource tags, in the order the docs list them. */
export const RESOURCE_TAGS: readonly (readonly [string, string])[] = [
  ['Authentication', 'Tokens for the gateway and integration APIs, and who a token belongs to'],
  ['Cards', 'The public key for encryptedCard, card tokens and the card vault'],
  ['Payments', 'Card payments: authorize, read, cancel, refund, anti-fraud review'],
  ['Disputes', 'Chargebacks: registered as the acquirer reports them, answered with evidence or accepted, decided by the card network'],
  ['Payment links', 'Payment links and their hosted checkout'],
  ['Pix', 'Pix charges and their locations'],
  ['Plans', 'Recurrence plans'],
  ['Subscriptions', 'Stored cards subscribed to plans'],
  ['Billings', 'The charges of subscriptions, with their attempts and retries'],
  ['Conciliation', 'Sales and installments: what was sold, what is received and when'],
  ['Prepayments', 'Receiving open installments early'],
  ['Bank slips', 'Boletos: issue, list, print, CNAB files'],
  ['Webhooks', 'Where notifications go, and the delivery log'],
  ['Merchants', 'Operator API: merchants and their credentials'],
  ['Pricing', "Operator API: a merchant's MDR, fees and prepayment rate"],
  ['Anti-fraud', 'Operator API: thresholds, blocklist, IP countries'],
  ['Acquirer connections', "Operator API: a merchant's own acquirer account"],
  ['Sandbox', 'Sandbox controls: clock, reset, forced outcomes, paying slips and Pix, disputing payments (sandbox mode only)'],
  ['Operations', 'Health, readiness, metrics'],
];

export const security = {
  gateway: [{ gatewayToken: [] }],
  integration: [{ integrationToken: [] }],
  admin: [{ adminKey: [] }],
};

/**
 * OpenAPI 3.1 generated from the route schemas, served at /openapi.json and browsable at /docs
 * while DOCS_PUBLIC (default: sandbox only). Hidden, both answer the not-found error array like
 * any unknown path; the document is still generated (`app.swagger()`) for tooling.
 */
/** What the document names from the configuration (a `Config` satisfies it). */
export interface OpenApiSettings {
  gatewayBasePath: string;
  integrationBasePath: string;
  docsPublic: boolean;
}

export async function installOpenApi(app: FastifyInstance, config: OpenApiSettings): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Payment gateway',
        version: '0.1.0',
        description:
          `Gateway API under \`${config.gatewayBasePath}\`, integration API under \`${config.integrationBasePath}\`, ` +
          'operator API under `/admin`, sandbox controls under `/sandbox` (sandbox mode only).',
      },
      // Relative: "Try it out" calls the host the docs were opened at (127.0.0.1, a LAN name, a proxy).
      servers: [{ url: '/', description: 'The host serving this document' }],
      // One tag per resource, named as the SDK groups its methods; every operation has one (test/http/openapi-product.test.ts).
      tags: RESOURCE_TAGS.map(([name, description]) => ({ name, description })),
      components: {
        securitySchemes: {
          gatewayToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: `From POST ${config.gatewayBasePath}/api/auth/token` },
          integrationToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: `From POST ${config.integrationBasePath}/api/authentication/login` },
          adminKey: { type: 'http', scheme: 'bearer', description: 'ADMIN_API_KEY' },
          metricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN (when set)' },
        },
      },
    },
    // Closed bodies (`additionalProperties: {not: {}}`, e.g. the bank slip issue body) refuse an
    // unknown field with a 400 instead of dropping it (validation.ts); readers and the SDK see them
    // as what they are: `additionalProperties: false`.
    transformObject: (document) => closedAsFalse('openapiObject' in document ? document.openapiObject : document.swaggerObject) as ReturnType<SwaggerTransformObject>,
  });
  if (!config.docsPublic) return;
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

const refusesEverything = (v: unknown) =>
  typeof v === 'object' && v !== null && Object.keys(v).length === 1 && typeof (v as { not?: unknown }).not === 'object' && Object.keys((v as { not: object }).not ?? { x: 1 }).length === 0;

/** A copy of the document in which every `additionalProperties: {not: {}}` is `false`. */
function closedAsFalse(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(closedAsFalse);
  if (value === null || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) copy[key] = key === 'additionalProperties' && refusesEverything(v) ? false : closedAsFalse(v);
  return copy;
}
