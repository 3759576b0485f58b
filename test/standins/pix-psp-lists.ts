/**
 * The list queries of the stand-in PSP (`GET /pix`, `GET /rec`, `GET /cobr`), as openapi.yaml
 * defines them: `inicio` and `fim` required (RFC 3339 date-time; both ends included; the items'
 * creation instant), `paginacao.paginaAtual` (integer >= 0, default 0) and
 * `paginacao.itensPorPagina` (integer 1 to 1000, default 100), and each list's filters. The
 * spec's `...ConsultaInvalida` (400) answers a parameter off its schema, `fim` before `inicio`,
 * and `cpf` with `cnpj`; this stand-in also refuses a parameter the list does not define, so a
 * misspelt one fails a test instead of being ignored.
 */

/** RFC 3339 date-time (`full-date "T" full-time`, an offset or Z). */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const INT32_MAX = 2_147_483_647;

/** A list's own filters: the parameter and the check of its value (true: valid). */
export type ListFilters = Record<string, (value: string) => boolean>;

const COMMON: ListFilters = {
  cpf: (v) => /^\d{11}$/.test(v),
  cnpj: (v) => /^[0-9A-Z]{14}$/.test(v),
};

export interface ListQuery {
  inicio: number;
  fim: number;
  page: number;
  size: number;
  /** The filters given (by name). */
  filters: Record<string, string>;
}

/** The query read, or the violation to answer 400 with. */
export function readListQuery(query: URLSearchParams, filters: ListFilters): ListQuery | { violation: string } {
  const known = { ...COMMON, ...filters };
  for (const name of new Set(query.keys())) {
    if (!['inicio', 'fim', 'paginacao.paginaAtual', 'paginacao.itensPorPagina'].includes(name) && !(name in known)) return { violation: `${name} is not a parameter of this list` };
    if (query.getAll(name).length > 1) return { violation: `${name} is given more than once` };
  }
  const instant = (name: string) => {
    const value = query.get(name) ?? '';
    return DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)) ? Date.parse(value) : null;
  };
  const inicio = instant('inicio');
  const fim = instant('fim');
  if (inicio === null || fim === null) return { violation: 'inicio and fim are required (RFC 3339 date-time)' };
  if (fim < inicio) return { violation: 'fim is before inicio' };
  const integer = (name: string, fallback: number, min: number, max: number) => {
    const value = query.get(name);
    if (value === null) return fallback;
    return /^-?\d+$/.test(value) && Number(value) >= min && Number(value) <= max ? Number(value) : null;
  };
  const page = integer('paginacao.paginaAtual', 0, 0, INT32_MAX);
  if (page === null) return { violation: 'paginacao.paginaAtual must be an integer >= 0' };
  const size = integer('paginacao.itensPorPagina', 100, 1, 1000);
  if (size === null) return { violation: 'paginacao.itensPorPagina must be an integer from 1 to 1000' };
  if (query.has('cpf') && query.has('cnpj')) return { violation: 'cpf and cnpj cannot be used together' };
  const given: Record<string, string> = {};
  for (const [name, check] of Object.entries(known)) {
    const value = query.get(name);
    if (value === null) continue;
    if (!check(value)) return { violation: `${name} does not match its schema` };
    given[name] = value;
  }
  return { inicio, fim, page, size, filters: given };
}

/**
 * The items created in [inicio, fim], oldest first (then by id, so pages are stable), and the
 * page asked with `parametros` as the spec's answers carry them. `cap` is the most items a page
 * of this PSP holds (small in tests, so paging is exercised).
 */
export function listPage<T>(query: ListQuery, items: T[], createdAt: (item: T) => string, id: (item: T) => string, cap: number) {
  const inWindow = items
    .filter((item) => Date.parse(createdAt(item)) >= query.inicio && Date.parse(createdAt(item)) <= query.fim)
    .sort((a, b) => Date.parse(createdAt(a)) - Date.parse(createdAt(b)) || id(a).localeCompare(id(b)));
  const size = Math.min(query.size, cap);
  const { convenio, ...filters } = query.filters;
  return {
    parametros: {
      inicio: new Date(query.inicio).toISOString(),
      fim: new Date(query.fim).toISOString(),
      ...filters,
      ...(convenio === undefined ? {} : { recebedor: { convenio } }),
      paginacao: { paginaAtual: query.page, itensPorPagina: size, quantidadeDePaginas: Math.max(1, Math.ceil(inWindow.length / size)), quantidadeTotalDeItens: inWindow.length },
    },
    items: inWindow.slice(query.page * size, query.page * size + size),
  };
}
