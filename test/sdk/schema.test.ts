import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { liveDocument, SCHEMA_FILE, schemaSource } from '../../scripts/sdk-generate.js';

/**
 * The SDK's types are generated, never written by hand, and committed so that `npm test` needs
 * no generation step. This fails when a route's schema changed and `npm run sdk:generate` was not
 * run: the committed sdk/src/schema.d.ts must be what openapi-typescript makes of the document
 * the server serves today.
 */
describe('sdk/src/schema.d.ts', () => {
  it('is up to date with the server\'s OpenAPI document (else: npm run sdk:generate)', async () => {
    const expected = await schemaSource(liveDocument());
    const committed = readFileSync(SCHEMA_FILE, 'utf8');
    expect(committed === expected, 'sdk/src/schema.d.ts is out of date: run npm run sdk:generate and commit the result').toBe(true);
  }, 60_000);
});
