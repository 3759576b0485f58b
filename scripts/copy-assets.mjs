#!/usr/bin/env node
// `npm run build`: tsc compiles src/**/*.ts into dist/; this copies everything else under src/
// that the code reads at run time (the hosted checkout's checkout.js and checkout.css, read
// relative to the compiled module with `new URL('../assets/..', import.meta.url)`) to the same
// place under dist/, so `node dist/server.js` needs nothing from src/.
//   node scripts/copy-assets.mjs --clean   removes dist/ (before tsc: no stale files survive)
//   node scripts/copy-assets.mjs           copies the assets (after tsc)
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const dist = join(root, 'dist');

if (process.argv.includes('--clean')) {
  rmSync(dist, { recursive: true, force: true });
  process.exit(0);
}
if (!existsSync(dist)) {
  process.stderr.write('dist/ does not exist: run tsc -p tsconfig.build.json first\n');
  process.exit(1);
}

/** Every file under `dir` that tsc does not emit (TypeScript sources and declarations are its job). */
function* assets(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* assets(path);
    else if (entry.isFile() && !/\.[cm]?ts$/.test(entry.name)) yield path;
  }
}

let copied = 0;
for (const file of assets(src)) {
  const target = join(dist, relative(src, file));
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(file, target);
  copied += 1;
}
process.stdout.write(`copied ${copied} asset file(s) from src/ to dist/\n`);
