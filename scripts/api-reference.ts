/**
 * Writes docs/api-reference.md from the OpenAPI document the routes generate: every operation,
 * grouped by resource, with its method and path, its client method name (operationId), who may
 * call it and its summary. The full description, parameters and answers stay in the OpenAPI
 * document (`/openapi.json`, `/docs`); the page is the index to it. test/docs.test.ts fails when
 * an operation is missing from the file.
 *   npx tsx scripts/api-reference.ts            (rewrites docs/api-reference.md)
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { closeContext, createContext } from '../src/root/context.js';
import { buildApp } from '../src/root/app.js';
import { RESOURCE_TAGS } from '../src/http/openapi.js';
import { createLogger } from '../src/logger.js';

type Operation = { operationId: string; summary?: string; description?: string; tags?: string[]; security?: Record<string, unknown>[] };

const WHO: Record<string, string> = {
  gatewayToken: 'gateway',
  integrationToken: 'integration',
  adminKey: 'operator',
  metricsToken: 'metrics',
};

const config = loadConfig({ GATEWAY_MODE: 'sandbox', DATABASE_URL: 'sqlite::memory:', PASSWORD_HASH_COST: '10', DOCS_PUBLIC: 'true' });
const ctx = await createContext(config, { logger: createLogger('error') });
const app = await buildApp(ctx);
await app.ready();
const doc = app.swagger() as { paths: Record<string, Record<string, Operation>> };
await app.close();
await closeContext(ctx);

const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, op })));
const lines = [
  '# API reference',
  '',
  'Every operation, grouped by resource, generated from the OpenAPI document',
  '(`npx tsx scripts/api-reference.ts`). Each operation\'s description, parameters, answers and a',
  'valid example body are in that document: `/openapi.json`, browsable at `/docs`. The name in',
  '`code` is the `operationId`, the method name a generated client gives it. **K**: accepts an',
  '`Idempotency-Key` header.',
  '',
  'Who may call: **public** (no credentials), **gateway** (token of `POST /gateway/api/auth/token`),',
  '**integration** (token of `POST /integration/api/authentication/login`), **operator**',
  '(`ADMIN_API_KEY` as `Authorization: Bearer`), **metrics** (`METRICS_TOKEN`, when set). Rules',
  'every endpoint follows (errors, Idempotency-Key, lists, time): [integrator-guide.md](integrator-guide.md#answers-and-errors).',
  'The `/sandbox` operations exist in sandbox mode only.',
  '',
];
// Resources in the OpenAPI document's order; their descriptions are at /docs.
for (const [tag] of RESOURCE_TAGS) {
  const inTag = operations.filter((o) => o.op.tags?.[0] === tag);
  if (!inTag.length) continue;
  lines.push(`## ${tag}`, '', '| operation | call | who | summary |', '|---|---|---|---|');
  for (const { method, path, op } of inTag) {
    const scheme = Object.keys(op.security?.[0] ?? {})[0];
    const who = scheme ? WHO[scheme] ?? scheme : 'public';
    const key = /Idempotency-Key/.test(op.description ?? '') ? ' **K**' : '';
    const summary = (op.summary ?? '').replace(/\s+/g, ' ').replace(/\|/g, '\\|').replace(/\.$/, '').trim();
    lines.push(`| \`${op.operationId}\` | \`${method} ${path}\` | ${who} | ${summary}${key} |`);
  }
  lines.push('');
}
writeFileSync(join(import.meta.dirname, '../docs/api-reference.md'), lines.join('\n'));
