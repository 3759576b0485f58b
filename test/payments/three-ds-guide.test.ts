import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';

/**
 * docs/integrator-guide.md's 3-D Secure walkthrough, pasted into a shell against a fresh
 * `npm start` (the embedded database), every curl failing on an HTTP error: the challenge is
 * passed through the sandbox ACS and the payment ends Authorized.
 */
const root = join(import.meta.dirname, '../..');
const guide = readFileSync(join(root, 'docs/integrator-guide.md'), 'utf8');
const section = guide.slice(guide.indexOf('## 3-D Secure'));
const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;

describe.runIf(testDialect === 'sqlite')('the 3-D Secure walkthrough of the integrator guide', () => {
  let dir: string;
  let server: ChildProcess;
  let output = '';
  const port = 20000 + Math.floor(Math.random() * 20000);
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-3ds-guide-'));
    server = spawn(process.execPath, [join(root, 'node_modules/tsx/dist/cli.mjs'), join(root, 'src/server.ts')], {
      env: { PATH: process.env.PATH, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `sqlite:${join(dir, 'gateway.db')}`, PASSWORD_HASH_COST: '10' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout!.on('data', (d) => (output += d));
    server.stderr!.on('data', (d) => (output += d));
    for (let i = 0; i < 600 && !output.includes('admin key:'); i++) {
      if (server.exitCode !== null) throw new Error(`server exited: ${output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }, 60_000);
  afterAll(async () => {
    server?.kill('SIGTERM');
    await new Promise((r) => (server?.exitCode !== null ? r(null) : server.once('exit', r)));
    rmSync(dir, { recursive: true, force: true });
  });

  it('passes the challenge and ends Authorized, the browser sent to returnUrl', () => {
    const printed = (name: string) => new RegExp(`${name}:\\s+(\\S+)`).exec(output)?.[1] ?? '';
    const script = [
      'set -eo pipefail',
      'curl() { command curl --fail-with-body "$@"; }',
      `TOKEN=$(curl -s -X POST localhost:8080/gateway/api/auth/token -H 'content-type: application/json' -d '{"userName":"${printed('userName')}","password":"${printed('password')}"}' | node -pe 'JSON.parse(require("fs").readFileSync(0)).accessToken')`,
      block,
    ].join('\n').replaceAll('localhost:8080', `localhost:${port}`);
    writeFileSync(join(dir, 'walkthrough.sh'), script);
    const run = spawnSync('bash', [join(dir, 'walkthrough.sh')], { cwd: root, encoding: 'utf8', timeout: 60_000, env: { PATH: process.env.PATH, HOME: process.env.HOME } });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/"status":"PendingAuthentication"/);
    expect(run.stdout).toMatch(/^303 http:\/\/localhost:3000\/order\/1002\?paymentId=[0-9a-f-]{36}&status=Authorized$/m);
    expect(run.stdout).toMatch(/"status":"Authorized".*"threeDs":\{"status":"Challenge","eci":"05","version":"2.2.0","liabilityShift":true/);
  }, 90_000);
});
