/**
 * Regenerates the SDK's types (sdk/src/schema.d.ts) from the live OpenAPI document, the one
 * scripts/dump-openapi.ts writes from the route schemas, with openapi-typescript:
 *   npm run sdk:generate
 * test/sdk/schema.test.ts fails when the committed file no longer matches the server's document.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SCHEMA_FILE = join(root, 'sdk/src/schema.d.ts');

/** The document the server serves at /openapi.json, as scripts/dump-openapi.ts writes it. */
export function liveDocument(): string {
  return execFileSync(process.execPath, ['--import', 'tsx', join(root, 'scripts/dump-openapi.ts'), '-'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

/** The TypeScript types of a document, exactly as committed in sdk/src/schema.d.ts. */
export async function schemaSource(document: string): Promise<string> {
  const ast = await openapiTS(JSON.parse(document), { alphabetize: false, emptyObjectsUnknown: true });
  return COMMENT_HEADER + astToString(ast);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  writeFileSync(SCHEMA_FILE, await schemaSource(liveDocument()));
  process.stdout.write(`wrote ${SCHEMA_FILE}\n`);
}
