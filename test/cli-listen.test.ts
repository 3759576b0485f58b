import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verify } from '../src/modules/webhooks/signature.js';
import { testDialect } from './support/database.js';
import { runningGateway, until, type RunningGateway } from './sdk/server.js';
import { Receiver, type Received } from './webhooks/receiver.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

interface Cli {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  exited: Promise<number>;
}

/** `node bin/gateway.js ...` as a real process, as an integrator types it. */
function gateway(args: string[], env: Record<string, string | undefined>): Cli {
  const child = spawn(process.execPath, [join(root, 'bin/gateway.js'), ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const cli: Cli = { child, stdout: '', stderr: '', exited: new Promise((resolve) => child.on('exit', (code) => resolve(code ?? -1))) };
  child.stdout!.on('data', (c: Buffer) => (cli.stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (cli.stderr += c.toString()));
  return cli;
}

/**
 * `gateway listen --forward-to` and `gateway trigger` against a running gateway: the listener
 * takes the account's real deliveries (signed by the gateway), verifies them, forwards them to a
 * local app and prints each with the app's answer; Ctrl-C puts the subscription back.
 */
describe(`gateway listen and trigger (${testDialect})`, () => {
  let g: RunningGateway;
  let env: Record<string, string>;
  const app = new Receiver(); // the merchant's local app, behind --forward-to
  const registered = new Receiver(); // the URL registered before listen
  let secret: string;
  const subscriptions = () => `/integration/api/webhooks/subscriptions?accountNumber=${g.merchant.accountNumber}`;
  let itoken: string;

  beforeAll(async () => {
    await app.start();
    await registered.start();
    g = await runningGateway();
    env = { GATEWAY_URL: g.baseUrl, GATEWAY_USER_NAME: g.merchant.userName, GATEWAY_PASSWORD: g.merchant.password, GATEWAY_WEBHOOK_BASIC_AUTH: undefined as unknown as string };
    const login = await g.t.inject({ method: 'POST', url: '/integration/api/authentication/login', payload: { userName: g.merchant.userName, password: g.merchant.password } });
    itoken = login.json().accessToken;
    const res = await g.t.inject({ method: 'POST', url: subscriptions(), headers: { authorization: `Bearer ${itoken}` }, payload: { url: registered.url('/before'), types: ['TransactionStatus'] } });
    expect(res.statusCode, res.body).toBe(200);
    secret = res.json().secret;
  });
  afterAll(async () => {
    await g.close();
    await app.stop();
    await registered.stop();
  });
  beforeEach(() => {
    app.received.length = 0;
    app.respond = () => 200;
  });

  const subscription = async () => (await g.t.inject({ method: 'GET', url: subscriptions(), headers: { authorization: `Bearer ${itoken}` } })).json();

  async function startListening(): Promise<Cli> {
    const cli = gateway(['listen', '--forward-to', app.url('/hooks')], env);
    await until('listen to be ready', () => cli.stderr.includes('Ready:') || cli.child.exitCode !== null);
    expect(cli.stderr, cli.stdout).toContain('Ready:');
    return cli;
  }

  async function trigger(event: string): Promise<any> {
    const cli = gateway(['trigger', event], env);
    const code = await cli.exited;
    expect(code, cli.stdout + cli.stderr).toBe(0);
    return JSON.parse(cli.stdout);
  }

  const eventOf = (type: string, paymentId: string) => (r: Received) => r.json?.type === type && r.json?.data?.paymentId === paymentId;

  it('forwards real, signed deliveries to --forward-to, prints each with its status, and restores the subscription on SIGINT', async () => {
    const cli = await startListening();
    try {
      expect((await subscription()).url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/);
      const triggered = await trigger('payment.authorized');
      expect(triggered).toMatchObject({ event: 'payment.authorized', status: 'Authorized' });
      const event = await until('the forwarded payment.authorized event', () => app.received.find(eventOf('payment.authorized', triggered.paymentId)));
      expect(event.path).toBe('/hooks');
      // Body and signature headers as the gateway sent them: the local app verifies with the account's own secret.
      expect(verify(secret, String(event.headers['webhook-id']), Number(event.headers['webhook-timestamp']), event.body, String(event.headers['webhook-signature']))).toBe(true);
      expect(event.json).toMatchObject({ type: 'payment.authorized', data: { paymentId: triggered.paymentId, status: 'Authorized' } });
      // Every type comes while listening: the conciliation notification too.
      await until('the TransactionStatus notification', () => app.received.find((r) => r.json?.type === 'TransactionStatus' && r.json?.newValue === 'Authorized'));
      await until('the printed lines', () => /payment\.authorized -> 200/.test(cli.stdout) && /TransactionStatus ->Authorized -> 200/.test(cli.stdout));
      expect(cli.stdout).toMatch(/^\d\d:\d\d:\d\d payment\.authorized -> 200$/m);

      // The local app's answer is what the gateway sees: a 500 is printed, and the gateway logs it for a retry.
      app.respond = () => 500;
      const failing = await trigger('payment.canceled');
      await until('the forwarded payment.canceled event', () => app.received.find(eventOf('payment.canceled', failing.paymentId)));
      await until('the printed 500', () => /payment\.canceled -> 500/.test(cli.stdout));
      // Nothing secret is printed.
      expect(cli.stdout + cli.stderr).not.toContain(secret);
      expect(cli.stdout + cli.stderr).not.toContain(g.merchant.password);
    } finally {
      cli.child.kill('SIGINT');
    }
    expect(await cli.exited).toBe(0);
    expect(cli.stderr).toContain('back to');
    expect(await subscription()).toMatchObject({ url: registered.url('/before'), types: ['TransactionStatus'], basicAuth: false });
  });

  it('a delivery with a bad signature is answered 401 and not forwarded', async () => {
    const cli = await startListening();
    try {
      const { url } = await subscription();
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,Zm9yZ2Vk' }, body: '{"type":"payment.authorized"}' });
      expect(res.status).toBe(401);
      await until('the printed refusal', () => cli.stdout.includes('payment.authorized -> signature invalid, not forwarded'));
      expect(app.received).toHaveLength(0);
    } finally {
      cli.child.kill('SIGINT');
    }
    expect(await cli.exited).toBe(0);
  });

  it('trigger makes real events of each type it knows (payment.denied, payment.canceled), listed in the delivery log', async () => {
    const all = new Receiver();
    await all.start();
    try {
      await g.t.inject({ method: 'POST', url: subscriptions(), headers: { authorization: `Bearer ${itoken}` }, payload: { url: all.url('/all'), types: ['*'] } });
      const denied = await trigger('payment.denied');
      expect(denied).toMatchObject({ event: 'payment.denied', status: 'Denied', returnCode: '51' });
      const canceled = await trigger('payment.canceled');
      expect(canceled).toMatchObject({ event: 'payment.canceled', status: 'Canceled' });
      await until('payment.denied delivered', () => all.received.find(eventOf('payment.denied', denied.paymentId)));
      await until('payment.canceled delivered', () => all.received.find(eventOf('payment.canceled', canceled.paymentId)));
      const log = (await g.t.inject({ method: 'GET', url: `/integration/api/webhooks/deliveries?accountNumber=${g.merchant.accountNumber}&limit=100`, headers: { authorization: `Bearer ${itoken}` } })).json();
      const types = (log.items ?? log).map((d: any) => d.type);
      expect(types).toEqual(expect.arrayContaining(['payment.denied', 'payment.canceled']));
    } finally {
      await g.t.inject({ method: 'POST', url: subscriptions(), headers: { authorization: `Bearer ${itoken}` }, payload: { url: registered.url('/before'), types: ['TransactionStatus'] } });
      await all.stop();
    }
  });

  it('trigger makes every other event it knows, each delivered to the account subscription; the operator key is asked for by name where needed', async () => {
    const all = new Receiver();
    await all.start();
    const events = ['payment.authorized', 'subscription.active', 'billing.opened', 'subscription.canceled', 'plan.status_changed', 'payment_link.deactivated', 'bank_slip.issued', 'bank_slip.paid', 'pix_charge.paid'];
    try {
      await g.t.inject({ method: 'POST', url: subscriptions(), headers: { authorization: `Bearer ${itoken}` }, payload: { url: all.url('/all'), types: ['*'] } });
      for (const event of events) {
        const cli = gateway(['trigger', event], { ...env, GATEWAY_ADMIN_KEY: g.t.ctx.adminApiKey });
        expect(await cli.exited, `${event}: ${cli.stdout}${cli.stderr}`).toBe(0);
        expect(JSON.parse(cli.stdout).event).toBe(event);
        await until(`${event} delivered`, () => all.received.find((r) => r.json?.type === event));
      }
      // The operator key is asked for by name when an event needs it, and nothing is made.
      const refused = gateway(['trigger', 'bank_slip.paid'], env);
      expect(await refused.exited).not.toBe(0);
      expect(JSON.parse(refused.stdout)[0].tag).toBe('GATEWAY_ADMIN_KEY');
    } finally {
      await g.t.inject({ method: 'POST', url: subscriptions(), headers: { authorization: `Bearer ${itoken}` }, payload: { url: registered.url('/before'), types: ['TransactionStatus'] } });
      await all.stop();
    }
  }, 120_000);

  it('errors are the JSON error array naming what is wrong', async () => {
    const unknown = gateway(['trigger', 'payment.nothing'], env);
    expect(await unknown.exited).toBe(1);
    expect(JSON.parse(unknown.stdout)).toEqual([{ tag: 'EVENT', description: expect.stringContaining('payment.authorized') }]);

    const noPassword = gateway(['trigger', 'payment.authorized'], { ...env, GATEWAY_PASSWORD: '' });
    expect(await noPassword.exited).toBe(1);
    expect(JSON.parse(noPassword.stdout).map((e: any) => e.tag)).toEqual(['GATEWAY_PASSWORD']);

    const badTarget = gateway(['listen', '--forward-to', 'not a url'], env);
    expect(await badTarget.exited).toBe(1);
    expect(JSON.parse(badTarget.stdout)[0].tag).toBe('--forward-to');

    const wrongPassword = gateway(['trigger', 'payment.authorized'], { ...env, GATEWAY_PASSWORD: 'wrong-password-123' });
    expect(await wrongPassword.exited).toBe(1);
    expect(JSON.parse(wrongPassword.stdout)[0].tag).toBe('login');
    expect(wrongPassword.stdout + wrongPassword.stderr).not.toContain('wrong-password-123');

    // A subscription with basicAuth cannot be restored without it: listen refuses before touching it.
    await g.t.inject({ method: 'POST', url: subscriptions(), headers: { authorization: `Bearer ${itoken}` }, payload: { url: registered.url('/before'), basicAuth: Buffer.from('shop:s3cret').toString('base64') } });
    try {
      const refused = gateway(['listen', '--forward-to', app.url('/hooks')], env);
      expect(await refused.exited).toBe(1);
      expect(JSON.parse(refused.stdout)[0].tag).toBe('GATEWAY_WEBHOOK_BASIC_AUTH');
      expect(await subscription()).toMatchObject({ url: registered.url('/before'), basicAuth: true });
    } finally {
      await g.t.inject({ method: 'POST', url: subscriptions(), headers: { authorization: `Bearer ${itoken}` }, payload: { url: registered.url('/before'), types: ['TransactionStatus'] } });
    }
  }, 60_000);
});
