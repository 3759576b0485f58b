import { describe, expect, it } from 'vitest';
import { listPage, readListQuery, type ListQuery } from './pix-psp-lists.js';

/** The stand-in's list queries refuse what the API Pix's `...ConsultaInvalida` names. */
describe('stand-in PSP list queries', () => {
  const FILTERS = { idRec: (v: string) => /^[a-zA-Z0-9]{29}$/.test(v) };
  const read = (query: Record<string, string>) => readListQuery(new URLSearchParams(query), FILTERS);
  const window = { inicio: '2026-03-01T00:00:00Z', fim: '2026-03-02T00:00:00.000Z' };

  it('reads the window, the page (0 by default) and the page size (100 by default)', () => {
    expect(read(window)).toEqual({ inicio: Date.parse(window.inicio), fim: Date.parse(window.fim), page: 0, size: 100, filters: {} });
    expect(read({ ...window, 'paginacao.paginaAtual': '2', 'paginacao.itensPorPagina': '1000', idRec: 'RR1234567820260301abcdefghijk' })).toMatchObject({ page: 2, size: 1000, filters: { idRec: 'RR1234567820260301abcdefghijk' } });
  });

  it.each([
    [{ fim: window.fim }, /inicio and fim/],
    [{ ...window, inicio: '2026-03-01' }, /inicio and fim/],
    [{ ...window, fim: 'yesterday' }, /inicio and fim/],
    [{ inicio: window.fim, fim: window.inicio }, /fim is before inicio/],
    [{ ...window, 'paginacao.paginaAtual': '-1' }, /paginaAtual/],
    [{ ...window, 'paginacao.paginaAtual': '1.5' }, /paginaAtual/],
    [{ ...window, 'paginacao.itensPorPagina': '0' }, /itensPorPagina/],
    [{ ...window, 'paginacao.itensPorPagina': '1001' }, /itensPorPagina/],
    [{ ...window, 'paginacao.itensPorPagina': '-5' }, /itensPorPagina/],
    [{ ...window, cpf: '52998224725', cnpj: '11222333000181' }, /cpf and cnpj/],
    [{ ...window, cpf: '5299822472' }, /cpf/],
    [{ ...window, idRec: 'short' }, /idRec/],
    [{ ...window, 'paginacao.pagina': '1' }, /not a parameter/],
  ])('refuses %o', (query, why) => {
    const answer = read(query);
    expect('violation' in answer && answer.violation).toMatch(why);
  });

  it('pages the items created in the window, oldest first, with the spec parametros', () => {
    const items = Array.from({ length: 7 }, (_, i) => ({ id: `i${i}`, at: `2026-03-01T0${6 - i}:00:00.000Z` }));
    const query = read({ ...window, 'paginacao.paginaAtual': '1', 'paginacao.itensPorPagina': '5' }) as ListQuery;
    const page = listPage(query, [...items, { id: 'late', at: '2026-03-02T00:00:00.001Z' }], (i) => i.at, (i) => i.id, 3);
    expect(page.parametros.paginacao).toEqual({ paginaAtual: 1, itensPorPagina: 3, quantidadeDePaginas: 3, quantidadeTotalDeItens: 7 });
    expect(page.items.map((i) => i.id)).toEqual(['i3', 'i2', 'i1']);
  });
});
