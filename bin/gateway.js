#!/usr/bin/env node
// The package's command-line tool (`npx gateway ...`), in this process so that SIGTERM and
// SIGINT reach the server that `gateway serve` starts:
// - in a source checkout (src/cli.ts present) it runs the TypeScript through tsx's loader, so no
//   build step is needed and a stale dist/ is never used;
// - in a built image (dist/ only, as the Dockerfile's runtime stage) it runs dist/cli.js with plain node.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'src/cli.ts');
const built = join(root, 'dist/cli.js');

async function loadCli() {
  if (existsSync(source)) {
    const { register } = await import('tsx/esm/api');
    register();
    return import(pathToFileURL(source).href);
  }
  if (existsSync(built)) return import(pathToFileURL(built).href);
  throw new Error(`neither ${source} nor ${built} exists: run "npm run build" first`);
}

loadCli()
  .then(({ runCli }) => runCli(process.argv.slice(2)))
  .then(
    (code) => process.exit(code),
    (error) => {
      // Errors are the JSON error array, as every other failure of the tool.
      process.stderr.write(`${JSON.stringify([{ tag: 'internal', description: error instanceof Error ? error.message : String(error) }])}\n`);
      process.exit(1);
    },
  );
