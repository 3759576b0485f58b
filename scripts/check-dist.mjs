#!/usr/bin/env node
// CI, after `npm run build`: the Dockerfile's runtime stage, run natively where there is no
// Docker engine. In a temporary directory holding only what the image holds (package.json,
// bin/, dist/ and the installed node_modules; no src/, no tsconfig) it
//   1. checks that dist/ imports only node builtins and `dependencies` (the image installs
//      with --omit=dev, so a devDependency imported at run time would crash there),
//   2. runs `node bin/gateway.js migrate up` and `migrate status` (the bin on dist/, plain node),
//   3. starts `node dist/server.js` on a temporary SQLite database and a free port, waits for
//      /readyz 200, opens a payment link's hosted checkout page and fetches the script and
//      style the page links (the assets copied into dist/),
//   4. stops it with SIGTERM, as `docker stop` does, and expects exit code 0.
// Usage: npm run build && node scripts/check-dist.mjs
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const step = (text) => process.stdout.write(`check-dist: ${text}\n`);
class CheckFailed extends Error {}
function fail(text) {
  throw new CheckFailed(text);
}
process.on('uncaughtException', (error) => {
  process.stderr.write(`check-dist: FAILED: ${error instanceof CheckFailed ? error.message : error.stack}\n`);
  process.exit(1);
});

if (!existsSync(join(root, 'dist/server.js'))) fail('dist/server.js is missing: run npm run build first');

// 1. Every bare import in the compiled code names a builtin or a runtime dependency.
const allowed = new Set([...builtinModules, ...Object.keys(pkg.dependencies ?? {})]);
const packageOf = (spec) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
const offending = [];
function* jsFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* jsFiles(path);
    else if (entry.name.endsWith('.js') && !path.includes('/assets/')) yield path; // assets are browser scripts
  }
}
for (const file of jsFiles(join(root, 'dist'))) {
  const text = readFileSync(file, 'utf8');
  // TypeScript's own scanner finds static imports, re-exports and import('...') (never strings that look like them).
  for (const { fileName: spec } of ts.preProcessFile(text, true, true).importedFiles) {
    if (spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('node:')) continue;
    if (!allowed.has(packageOf(spec))) offending.push(`${file.slice(root.length + 1)} imports ${spec}`);
  }
}
if (offending.length) fail(`dist/ imports packages that are not runtime dependencies:\n  ${offending.join('\n  ')}`);
step('dist/ imports only node builtins and dependencies');

// The runtime stage's layout.
const app = mkdtempSync(join(tmpdir(), 'gateway-dist-'));
let server;
try {
  for (const name of ['package.json', 'package-lock.json']) cpSync(join(root, name), join(app, name));
  cpSync(join(root, 'bin'), join(app, 'bin'), { recursive: true });
  cpSync(join(root, 'dist'), join(app, 'dist'), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(app, 'node_modules'), 'dir');

  const port = await freePort();
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: app,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: `sqlite:${join(app, 'data/gateway.db')}`,
    GATEWAY_MODE: 'sandbox',
    LOG_LEVEL: 'warn',
  };

  // 2. The bin on dist/ (no src/ here): migrate up, then status says nothing is pending.
  const cli = (...args) => {
    const r = spawnSync(process.execPath, ['bin/gateway.js', ...args], { cwd: app, env, encoding: 'utf8', timeout: 60_000 });
    if (r.status !== 0) fail(`gateway ${args.join(' ')} exited ${r.status}: ${r.stderr}${r.stdout}`);
    return JSON.parse(r.stdout);
  };
  const up = cli('migrate', 'up');
  const status = cli('migrate', 'status');
  if (up.applied.length === 0 || status.pending.length !== 0 || status.applied.length !== up.applied.length) {
    fail(`unexpected migrate output: ${JSON.stringify({ up, status })}`);
  }
  step(`gateway migrate up applied ${up.applied.length} migrations; status: none pending`);

  // 3. node dist/server.js, as the image's CMD.
  server = spawn(process.execPath, ['dist/server.js'], { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  server.stdout.on('data', (d) => (output += d));
  server.stderr.on('data', (d) => (output += d));
  const exited = new Promise((resolve) => server.on('exit', (code, signal) => resolve({ code, signal })));
  const base = `http://127.0.0.1:${port}`;

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (server.exitCode !== null) fail(`node dist/server.js exited ${server.exitCode} before it was ready:\n${output}`);
    const res = await fetch(`${base}/readyz`).catch(() => undefined);
    if (res?.status === 200) break;
    if (Date.now() > deadline) fail(`/readyz did not answer 200 within 30 s (last: ${res?.status}):\n${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  step('node dist/server.js: /readyz 200');

  // The sandbox banner (printed just after the listener opens) holds the demo credential; with
  // it, a payment link and its hosted checkout page.
  while (!/password:\s+\S+/.test(output)) {
    if (Date.now() > deadline) fail(`no demo credential in the sandbox banner:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const userName = /userName:\s+(\S+)/.exec(output)?.[1];
  const password = /password:\s+(\S+)/.exec(output)?.[1];
  const json = async (res, expected) => {
    if (res.status !== expected) fail(`${res.url} answered ${res.status}: ${await res.text()}`);
    return res.json();
  };
  const post = (path, body, headers = {}) =>
    fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const { accessToken } = await json(await post('/gateway/api/auth/token', { userName, password }), 200);
  const link = await json(
    await post(
      '/gateway/v1/paymentlink',
      { description: 'check-dist', value: 10.5, qttyInstallments: 1, expirationDate: new Date(Date.now() + 7 * 86_400_000).toISOString() },
      { authorization: `Bearer ${accessToken}` },
    ),
    201,
  );
  const page = await fetch(`${base}/pay/${link.id}`);
  const html = await page.text();
  if (page.status !== 200 || !html.includes('check-dist')) fail(`/pay/${link.id} answered ${page.status}`);
  for (const [name, type] of [['card-checks.js', 'javascript'], ['checkout.js', 'javascript'], ['checkout.css', 'css']]) {
    const href = new RegExp(`(?:src|href)="(/pay/assets/${name.replace('.', '\\.')}\\?v=[0-9a-f]+)"`).exec(html)?.[1];
    if (!href) fail(`the checkout page links no ${name}`);
    const res = await fetch(`${base}${href}`);
    const body = await res.text();
    const source = readFileSync(join(root, 'src/modules/paymentlinks/assets', name), 'utf8');
    if (res.status !== 200 || !res.headers.get('content-type')?.includes(type) || body !== source) {
      fail(`${href} answered ${res.status} ${res.headers.get('content-type')}, ${body === source ? 'same' : 'different'} content`);
    }
  }
  step(`the hosted checkout page /pay/${link.id} and its card-checks.js, checkout.js and checkout.css are served`);

  // 4. docker stop: SIGTERM, a clean shutdown, exit code 0.
  server.kill('SIGTERM');
  const timeout = setTimeout(() => server.kill('SIGKILL'), 20_000);
  const { code, signal } = await exited;
  clearTimeout(timeout);
  if (code !== 0) fail(`after SIGTERM node dist/server.js exited ${code ?? signal}:\n${output}`);
  server = undefined;
  step('SIGTERM: exit code 0');
} catch (error) {
  process.stderr.write(`check-dist: FAILED: ${error instanceof CheckFailed ? error.message : error.stack}\n`);
  process.exitCode = 1;
} finally {
  server?.kill('SIGKILL');
  rmSync(app, { recursive: true, force: true });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}
