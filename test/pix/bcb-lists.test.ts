import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SystemClock } from '../../src/clock.js';
import { BcbPixProvider } from '../../src/pix-provider/bcb/provider.js';
import type { PixConfig } from '../../src/pix-provider/config.js';
import { PixProviderRefused, PixProviderUnavailable } from '../../src/pix-provider/types.js';

const REC = 'RR1234567820260301abcdefghijk';
const TXID = 'a'.repeat(32);

/**
 * The connector's `GET /rec` and `GET /cobr` against a scripted PSP: the query it sends, the
 * items it reads, and the page counts it follows or not.
 */
describe('the bcb connector reads the GET /rec and GET /cobr lists', () => {
  let server: http.Server;
  let provider: BcbPixProvider;
  const queries: URLSearchParams[] = [];
  /** What the PSP answers each list page (by path and page). */
  let answer: (path: string, page: number) => { status: number; body: unknown } = () => ({ status: 200, body: {} });

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://psp');
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (url.pathname === '/oauth/token') return reply(200, { access_token: 'token', expires_in: 3600 });
      queries.push(url.searchParams);
      const { status, body } = answer(url.pathname.replace('/api/v2', ''), Number(url.searchParams.get('paginacao.paginaAtual')));
      reply(status, body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const config = { kind: 'bcb', apiUrl: `${origin}/api/v2`, tokenUrl: `${origin}/oauth/token`, clientId: 'client', clientSecret: 'secret', timeoutMs: 5000 } as PixConfig;
    provider = new BcbPixProvider(config, new SystemClock());
  });
  afterAll(async () => {
    provider.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const window = { from: new Date('2026-03-01T00:00:00Z'), to: new Date('2026-03-02T12:30:00Z') };
  const paginacao = (quantidadeDePaginas: number) => ({ parametros: { inicio: window.from.toISOString(), fim: window.to.toISOString(), paginacao: { paginaAtual: 0, itensPorPagina: 1000, quantidadeDePaginas, quantidadeTotalDeItens: 1 } } });

  it('asks the window and the page with 1000 items a page, and reads the recurrences it knows the shape of', async () => {
    answer = (path, page) => ({ status: 200, body: page === 0 ? { ...paginacao(1000), recs: [{ idRec: REC, status: 'APROVADA' }, { idRec: REC, status: 'SUSPENSA' }, { idRec: 'short', status: 'APROVADA' }] } : { ...paginacao(1000), recs: [] } });
    expect(await provider.listRecurrences(window, 0)).toEqual({ items: [{ recurrenceId: REC, status: 'APROVADA' }], pages: 1000 });
    expect(Object.fromEntries(queries.at(-1)!)).toEqual({ inicio: '2026-03-01T00:00:00.000Z', fim: '2026-03-02T12:30:00.000Z', 'paginacao.paginaAtual': '0', 'paginacao.itensPorPagina': '1000' });
    // A page that came empty ends the list, whatever count the PSP announced.
    expect(await provider.listRecurrences(window, 1)).toEqual({ items: [], pages: 2 });
  });

  it('reads a cobr with its refused tentatives', async () => {
    const cobr = { idRec: REC, txid: TXID, status: 'ATIVA', tentativas: [{ dataLiquidacao: '2026-03-10', status: 'REJEITADA', rejeicao: { codigo: 'AM04', descricao: 'Saldo insuficiente' } }] };
    answer = () => ({ status: 200, body: { ...paginacao(3), cobsr: [cobr] } });
    expect(await provider.listRecurringCharges(window, 2)).toEqual({ items: [{ txid: TXID, status: 'ATIVA', attempts: [{ date: '2026-03-10', status: 'REJEITADA', code: 'AM04', reason: 'Saldo insuficiente' }] }], pages: 3 });
    expect(queries.at(-1)!.get('paginacao.paginaAtual')).toBe('2');
  });

  it('a page without its list is no answer (unavailable); a 400 is the PSP refusing (its detail)', async () => {
    answer = () => ({ status: 200, body: paginacao(1) });
    await expect(provider.listRecurrences(window, 0)).rejects.toBeInstanceOf(PixProviderUnavailable);
    answer = () => ({ status: 400, body: { title: 'CobRConsultaInvalida', detail: 'fim is before inicio' } });
    await expect(provider.listRecurringCharges(window, 0)).rejects.toThrow(PixProviderRefused);
    await expect(provider.listRecurringCharges(window, 0)).rejects.toThrow(/fim is before inicio/);
  });
});
