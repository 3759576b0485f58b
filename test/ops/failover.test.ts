import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardNumber as card } from '../support/cards.js';
import { testDialect } from '../support/database.js';
import { canBuildPair, freePort, haproxyBin, PostgresPair, until } from '../support/pg-pair.js';

/**
 * PostgreSQL high availability against the real server process: a primary and a synchronous
 * standby built from the installed binaries, behind HAProxy (the standby its backup server),
 * the gateway's DATABASE_URL naming HAProxy and DATABASE_READ_URL the standby. Replica-safe
 * reads go to the standby, to the primary while its replay lags, and back. Then 8 clients pay,
 * the primary is killed with kill -9 and the standby promoted: the process lives, every answer
 * is a 201 or a 503 with Retry-After and the error array (never a 500), /readyz says 503 while
 * no server takes writes and recovers by itself, a payment is answered 201 within 20 s of the
 * promotion, and every payment answered 201 is on the promoted standby. Skipped (not failed)
 * where the server binaries or haproxy are not installed.
 */
const root = join(import.meta.dirname, '../..');
const ADMIN = 'failover-admin-key-0123456789abcdefghijklmn';
const CLIENTS = 8;

// Run with the PostgreSQL suite (it needs no TEST_DATABASE_URL, only the binaries): once per CI run.
describe.runIf(canBuildPair() && haproxyBin() !== undefined && testDialect === 'postgres')('failover to a synchronous standby behind HAProxy (real server process, real PostgreSQL pair)', () => {
  let pair: PostgresPair;
  let child: ChildProcess;
  let base = '';
  let output = '';

  beforeAll(async () => {
    pair = await new PostgresPair().start();
    const endpoint = await pair.startProxy();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/server.ts')], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: endpoint,
        DATABASE_READ_URL: `postgres://postgres@127.0.0.1:${pair.standby.port}/postgres`,
        DB_READ_MAX_LAG_SECONDS: '1',
        ADMIN_API_KEY: ADMIN,
        PASSWORD_HASH_COST: '10',
        WORKER_POLL_MS: '50',
        LOG_LEVEL: 'warn',
        DB_CONNECT_TIMEOUT_MS: '1000',
        DB_STATEMENT_TIMEOUT_MS: '2000',
        JOB_LEASE_MS: '3000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d) => (output = (output + d).slice(-50_000)));
    child.stderr!.on('data', (d) => (output = (output + d).slice(-50_000)));
    await until(async () => (await fetch(`${base}/readyz`).catch(() => null))?.status === 200, 60_000, () => `the server to start: ${output}`);
  }, 180_000);

  afterAll(() => {
    if (process.env.FAILOVER_TEST_VERBOSE) console.log(output, pair?.proxyLog);
    child?.kill('SIGKILL');
    pair?.stop();
  });

  const json = { 'content-type': 'application/json' };
  const admin = { ...json, authorization: `Bearer ${ADMIN}` };
  const post = (path: string, body: unknown, headers: Record<string, string>) => fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(30_000) });

  async function merchant() {
    const m: any = await (await post('/admin/merchants', { name: 'Failover Store', documentNumber: '11222333000181' }, admin)).json();
    const credential: any = await (await post(`/admin/merchants/${m.merchantId}/credentials`, { scopes: ['payments', 'integration'] }, admin)).json();
    await fetch(`${base}/admin/merchants/${m.merchantId}/antifraud`, { method: 'PUT', headers: admin, body: JSON.stringify({ velocity: { maxPerCard: 1e6, maxPerDocument: 1e6, maxPerIp: 1e6 } }) });
    const login = (url: string) => post(url, { userName: credential.userName, password: credential.password }, json).then((r) => r.json() as Promise<any>);
    const gateway = { ...json, authorization: `Bearer ${(await login('/gateway/api/auth/token')).accessToken}` };
    const integration = { authorization: `Bearer ${(await login('/integration/api/authentication/login')).accessToken}` };
    return { accountNumber: m.accountNumber as number, gateway, integration };
  }

  const metric = async (name: string, labels = '') => {
    const text = await (await fetch(`${base}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `) || (labels === '' && l.startsWith(`${name} `)));
    return line === undefined ? undefined : Number(line.split(' ').pop());
  };

  it('reads go to the replica, to the primary while the replica lags, and back; then a kill -9 of the primary and a promotion lose no answered payment', async () => {
    const m = await merchant();
    const vaults: string[] = [];
    for (let i = 0; i < CLIENTS; i++) {
      const cardNumber = card(`4${String(8_100_000 + i).padStart(14, '0')}`);
      vaults.push(((await (await post('/gateway/v1/vaults/cards', { cardNumber, expirationMonth: '12', expirationYear: '2035', cardholderName: 'HA BUYER' }, m.gateway)).json()) as any).vaultId);
    }
    const pay = (lane: number, amount: number) =>
      post('/gateway/v1/payments', { payment: { transactionType: 'credit', amount, productType: 'avista', installments: 1 }, sellerInfo: { codeAntiFraud: '3fa85f64-5717-4562-b3fc-2c963f66afa6' }, cardInfo: { vaultId: vaults[lane], cardholderName: 'HA BUYER' } }, m.gateway);
    const search = () => fetch(`${base}/integration/api/transaction/concil/search-by-operation-date?${new URLSearchParams({ accountNumber: String(m.accountNumber), startDate: '2020-01-01', endDate: '2020-01-31' })}`, { method: 'POST', headers: m.integration });
    const reads = async (target: 'replica' | 'primary') => (await metric('gateway_db_replica_safe_reads_total', `{target="${target}"}`)) ?? 0;

    // The standby answers the replica-safe reads while it keeps up.
    await until(async () => (await metric('gateway_db_replica_in_use')) === 1, 10_000, 'the replica to be in use');
    let before = await reads('replica');
    expect((await search()).status).toBe(200);
    expect(await reads('replica')).toBe(before + 1);

    // Its replay paused while payments are written: beyond DB_READ_MAX_LAG_SECONDS the primary answers them.
    pair.query(pair.standby, 'select pg_wal_replay_pause()');
    const stale = Date.now();
    await until(
      async () => {
        expect((await pay(0, 100)).status).toBe(201);
        return (await metric('gateway_db_replica_in_use')) === 0;
      },
      20_000,
      'the lagging replica to be left',
    );
    expect(Date.now() - stale).toBeGreaterThanOrEqual(1_000);
    before = await reads('primary');
    expect((await search()).status).toBe(200);
    expect(await reads('primary')).toBe(before + 1);
    expect(await metric('gateway_db_replica_lag_seconds')).toBeGreaterThan(1);
    // Replay resumed, the replica takes them again.
    pair.query(pair.standby, 'select pg_wal_replay_resume()');
    await until(async () => (await metric('gateway_db_replica_in_use')) === 1, 10_000, 'the replica to be in use again');
    before = await reads('replica');
    expect((await search()).status).toBe(200);
    expect(await reads('replica')).toBe(before + 1);

    // The burst, the kill, the promotion.
    const answers: { status: number; at: number; body: string }[] = [];
    const created: string[] = [];
    let stop = false;
    const lanes = Array.from({ length: CLIENTS }, async (_, lane) => {
      for (let k = 0; !stop; k++) {
        const res = await pay(lane, 1000 + k).catch((error: Error) => ({ status: 0, text: async () => String(error), headers: new Headers() }) as unknown as Response);
        const body = await res.text();
        answers.push({ status: res.status, at: Date.now(), body });
        if (res.status === 201) created.push(JSON.parse(body).paymentId);
        if (res.status === 503) {
          expect(res.headers.get('retry-after'), body).toMatch(/^\d+$/);
          expect(JSON.parse(body)[0].tag, body).toBe('database_unavailable');
          await new Promise((r) => setTimeout(r, 200));
        }
      }
    });
    await new Promise((r) => setTimeout(r, 1_500));
    const beforeKill = created.length;
    pair.kill(pair.primary);
    const killed = Date.now();
    // HAProxy marks the primary down and sends new connections to the standby, which refuses
    // writes until it is promoted: payments are answered 503, and /readyz says why.
    let readyDuring = '';
    await until(
      async () => {
        const ready = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(10_000) });
        readyDuring = `${ready.status} ${await ready.text()}`;
        return readyDuring.startsWith('503') && JSON.parse(readyDuring.slice(4))[0].tag === 'database_read_only';
      },
      10_000,
      () => `/readyz to say the database takes no writes: ${readyDuring}`,
    );
    await new Promise((r) => setTimeout(r, 1_000));
    pair.pgCtl(pair.standby, 'promote');
    const promoted = Date.now();
    await until(() => answers.some((a) => a.status === 201 && a.at > promoted), 20_000, () => `a payment answered 201 after the promotion: ${JSON.stringify(answers.slice(-5))} ${output.slice(-3000)}`);
    const firstAfter = answers.find((a) => a.status === 201 && a.at > promoted)!;
    await new Promise((r) => setTimeout(r, 2_000));
    stop = true;
    await Promise.all(lanes);

    expect(child.exitCode, output).toBeNull();
    expect(firstAfter.at - promoted).toBeLessThan(20_000);
    expect(beforeKill).toBeGreaterThan(0);
    const unexpected = answers.filter((a) => a.status !== 201 && a.status !== 503);
    expect(unexpected, JSON.stringify(unexpected.slice(0, 5))).toEqual([]);
    // The outage was seen (and answered 503), not slept through.
    expect(answers.some((a) => a.status === 503 && a.at > killed)).toBe(true);
    await until(async () => (await fetch(`${base}/readyz`)).status === 200, 15_000, 'ready again');

    // Every payment answered 201 is on the promoted standby.
    const list = created.map((id) => `'${id}'`).join(',');
    expect(Number(pair.query(pair.standby, `select count(*) from payments where payment_id in (${list})`))).toBe(created.length);
    expect(pair.query(pair.standby, 'select pg_is_in_recovery()')).toBe('f');
    expect(await metric('gateway_db_connections_closed_total')).toBeGreaterThan(0);
  }, 240_000);
});
