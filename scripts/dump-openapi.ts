/**
 * Writes the OpenAPI document the routes generate (GET /openapi.json) to a file, for
 * `npm run lint:openapi` (Redocly's linter) and client generators. Builds the app on a
 * throwaway in-memory sandbox database: nothing is listened on, nothing is kept.
 *   tsx scripts/dump-openapi.ts [out.json]   (default: openapi.json; "-" for stdout)
 */
import { writeFileSync } from 'node:fs';
import { loadConfig } from '../src/config.js';
import { closeContext, createContext } from '../src/root/context.js';
import { buildApp } from '../src/root/app.js';
import { createLogger } from '../src/logger.js';

const out = process.argv[2] ?? 'openapi.json';
const config = loadConfig({ GATEWAY_MODE: 'sandbox', DATABASE_URL: 'sqlite::memory:', PASSWORD_HASH_COST: '10', DOCS_PUBLIC: 'true' });
const ctx = await createContext(config, { logger: createLogger('error') });
const app = await buildApp(ctx);
await app.ready();
const document = JSON.stringify(app.swagger(), null, 2);
await app.close();
await closeContext(ctx);
if (out === '-') process.stdout.write(`${document}\n`);
else writeFileSync(out, `${document}\n`);
