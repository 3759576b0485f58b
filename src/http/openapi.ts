import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Config } from '../config.js';

export const ErrorArray = Type.Array(Type.Object({ tag: Type.String(), description: Type.String() }), {
  description: 'One entry per problem; tag is the field path for input errors, a short code otherwise.',
});

/** Common error answers for the routes' `response` maps, typed so handlers may send them. */
export function errorResponses<const S extends number[]>(...statuses: S): { [K in S[number]]: typeof ErrorArray } {
  return Object.fromEntries(statuses.map((s) => [s, ErrorArray])) as { [K in S[number]]: typeof ErrorArray };
}

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
export async function installOpenApi(app: FastifyInstance, config: Config): Promise<void> {
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
      servers: [{ url: config.publicUrl }],
      tags: [
        { name: 'gateway', description: 'Gateway API: tokens, cards, payments, payment links, recurrence' },
        { name: 'integration', description: 'Integration API: conciliation, bank slips, webhooks' },
        { name: 'admin', description: 'Operator API (ADMIN_API_KEY)' },
        { name: 'sandbox', description: 'Sandbox controls (ADMIN_API_KEY, sandbox mode only)' },
        { name: 'ops', description: 'Health, readiness, metrics' },
      ],
      components: {
        securitySchemes: {
          gatewayToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: `From POST ${config.gatewayBasePath}/api/auth/token` },
          integrationToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: `From POST ${config.integrationBasePath}/api/authentication/login` },
          adminKey: { type: 'http', scheme: 'bearer', description: 'ADMIN_API_KEY' },
          metricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN (when set)' },
        },
      },
    },
  });
  if (!config.docsPublic) return;
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
