import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from './support/database.js';

/**
 * The README's walkthroughs pass when pasted in order into a shell, against a
 * fresh `npm start` (the embedded database, as the README says). Every curl fails on an HTTP
 * error (--fail-with-body), so a 409 or a 400 in a walkthrough fails this test.
 */
const root = join(import.meta.dirname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The pasteable walkthroughs: ```sh blocks that talk to the local server (not the production or container ones). */
export function walkthroughs(text: string): string[] {
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)]
    .map((m) => m[1])
    // Never the install, start, production or container blocks: those would start servers of their own.
    .filter((block) => /curl .*localhost:8080/.test(block) && !/docker|npm (ci|install|start)|dist\/server/.test(block));
}

const random = () => 20000 + Math.floor(Math.random() * 20000);

describe.runIf(testDialect === 'sqlite')("the README's walkthroughs, pasted in order against a fresh server", () => {
  let dir: string;
  let server: ChildProcess;
  let output = '';
  const port = random();
  const receiverPort = port + 1;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-readme-'));
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

  const field = (name: string) => new RegExp(`${name}:\\s+(\\S+)`).exec(output)?.[1] ?? '';

  /** A README block as a user would paste it, with this server's address and printed values. */
  function localized(block: string): string {
    return block
      .replace(/^USER=\S+ PASS=\S+ ADMIN=\S+/m, `USER=${field('userName')} PASS=${field('password')} ADMIN=${field('admin key')}`)
      .replace(/^ACCOUNT=\d+/m, `ACCOUNT=${field('accountNumber')}`)
      .replaceAll('localhost:8080', `127.0.0.1:${port}`)
      .replaceAll('localhost:3000', `127.0.0.1:${receiverPort}`)
      .replaceAll('npx tsx examples/webhook-receiver.ts', `PORT=${receiverPort} npx tsx examples/webhook-receiver.ts`)
      .replaceAll('-o boleto.pdf', `-o ${join(dir, 'boleto.pdf')}`);
  }

  function run(blocks: string[]) {
    const script = [
      'set -eo pipefail',
      // Job control, as in the reader's terminal: `kill %1` stops a background job's whole process
      // group (npx, tsx and node), and none outlives the script.
      'set -m',
      "trap 'for j in $(jobs -p); do kill -- -$j 2>/dev/null || true; done' EXIT",
      // An HTTP error answer fails the walkthrough, as it would fail the reader.
      'curl() { command curl --fail-with-body "$@"; }',
      ...blocks.map(localized),
    ].join('\n');
    writeFileSync(join(dir, 'walkthrough.sh'), script);
    return spawnSync('bash', [join(dir, 'walkthrough.sh')], { cwd: root, encoding: 'utf8', timeout: 150_000, env: { PATH: process.env.PATH, HOME: process.env.HOME } });
  }

  it('finds a walkthrough for every capability, the first five minutes first', () => {
    const blocks = walkthroughs(readme);
    expect(blocks[0]).toContain('auth/token');
    const capabilities: Record<string, RegExp> = {
      'the sandbox reset': /\/sandbox\/reset/,
      'card payments': /\/gateway\/v1\/payments/,
      'anti-fraud review': /\/admin\/payments\/\S+\/review/,
      split: /configSplit/,
      conciliation: /\/concil\/search-by-/,
      refunds: /\/gateway\/v1\/payments\/\S+\/refunds/,
      disputes: /\/disputes\/\S+\/resolve/,
      prepayment: /\/integration\/api\/prepayments/,
      'payment links': /\/gateway\/v1\/paymentlink/,
      recurrence: /\/recurrences\/subscriptions/,
      Pix: /\/gateway\/v1\/pix\/charges/,
      'bank slips': /\/billissuer\/issue/,
      'CNAB files': /\/admin\/bankslips\/returns/,
      webhooks: /webhook-receiver/,
      'operator API': /\/admin\/merchants/,
    };
    expect(Object.keys(capabilities).filter((name) => !blocks.some((b) => capabilities[name].test(b)))).toEqual([]);
    expect(readme).not.toMatch(/\]\((?:\.\.\/)+shared\/|\bshared\/(?:seeds|CONTRACT)/);
  });

  it('every walkthrough passes in order; after a reset the first one passes again (same Idempotency-Key, same credentials)', () => {
    const blocks = walkthroughs(readme);
    const reset = blocks.find((b) => b.includes('/sandbox/reset'))!;
    const result = run([...blocks, reset, blocks[0]]);
    const shown = `exit ${result.status}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
    expect(result.status, shown).toBe(0);
    expect(result.stdout, shown).toContain('"status":"Authorized"');
    // The example receiver printed the webhook and the callback of the webhook walkthrough's payment.
    expect(result.stdout, shown).toMatch(/TransactionStatus -> Authorized|-> Authorized/);
    expect(result.stdout, shown).toContain('PaymentStatus');
    // Refunds and disputes: a partial refund, then the rest (Canceled); the disputed sale's installment blocked.
    expect(result.stdout, shown).toContain('"amount":4000,"status":"Succeeded"');
    expect(result.stdout, shown).toMatch(/"status":"Canceled".*"refundedAmount":12000/);
    // json prints the status on the line the evidence answer (no newline of its own) left.
    expect(result.stdout, shown).toMatch(/"status":"UnderReview".*\}B$/m);
    expect(result.stdout, shown).toContain('"status":"Won"');
  }, 300_000);
});
