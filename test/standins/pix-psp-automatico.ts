/**
 * The Pix Automático side of the stand-in PSP (./pix-psp.ts), written from the API Pix's
 * openapi.yaml: `POST /locrec`, `GET /locrec/{id}`, `POST /rec` (RecSolicitada, whose `loc` must
 * be a free locrec), `GET /rec` and `GET /cobr` (lists by creation window, filters and pages:
 * ./pix-psp-lists.ts), `GET /rec/{idRec}` (with `?txid=` of its journey-3 charge: `dadosQR`, the
 * composite code with both locations), `PATCH /rec/{idRec}`,
 * `PUT`/`GET`/`PATCH /cobr/{txid}` (CobRSolicitada), `POST /cobr/{txid}/retentativa/{data}`, and
 * the webhook calls `POST <webhookUrl>/rec` (`{recs}`) and `<webhookUrl>/cobr` (`{cobsr}`).
 * Requests are checked against the schemas (required fields, patterns, enums, unknown fields).
 *
 * The payer is played in-process: `scan` (journey 3 as a payer's bank does it: the composite code
 * is read, its two locations must name a recurrence and the very charge it starts, the charge is
 * paid and the recurrence approved), `authorize` (the same by idRec), `reject`, `cancel`, and
 * `settle` a cobr's tentative paid or refused;
 * each notification can be lost (`webhook: 'lose'`), so that only `GET` tells it.
 */
import { randomBytes } from 'node:crypto';
import { compositeCode, readCompositeCode } from './pix-composite-code.js';
import { listPage, readListQuery, type ListFilters } from './pix-psp-lists.js';

const VALOR = /^\d{1,10}\.\d{2}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TXID = /^[a-zA-Z0-9]{26,35}$/;
const ISPB = '12345678';
const RETRY_WINDOW_DAYS = 7;
const MAX_RETRIES = 3;
/** The refusal the payer's PSP reports for a balance that does not cover the charge. */
export const STANDIN_REFUSAL = { codigo: 'AM02', descricao: 'Saldo insuficiente na conta do pagador' };
/** A refusal whose code ends the cobr (CobRTentativas: AC05, AM09, DENC... cause its rejection). */
export const STANDIN_FINAL_REFUSAL = { codigo: 'AC05', descricao: 'Conta do pagador encerrada' };

type Json = Record<string, any>;
type Send = (status: number, body?: unknown) => void;
type Problem = (status: number, title: string, detail: string) => void;

/** What the stand-in's core gives this part. */
export interface AutomaticoHost {
  /** The payer pays an immediate charge (the journey-3 one); its `/pix` webhook follows. */
  payCharge(txid: string, webhook: 'deliver' | 'lose'): Promise<unknown>;
  hasActiveCharge(txid: string): boolean;
  /** The location of an immediate charge (`loc.location`), none for an unknown one. */
  chargeLocation(txid: string): string | undefined;
  /** POSTs to `<webhookUrl><suffix>`; answers the status. */
  post(suffix: string, body: unknown): Promise<number | string>;
  /** A Pix settled by the stand-in (listed by `GET /pix`). */
  record(pix: { endToEndId: string; txid: string; valor: string; chave: string; horario: string }): void;
  /** Today as the API Pix counts dates: the America/Sao_Paulo calendar day. */
  today(): string;
  /** Its clock: every instant it stamps (creation and changes, which its lists select by). */
  now(): Date;
  locationHost: string;
  /** The most items a list page holds. */
  pageSize: number;
}

export interface StandInRec {
  body: Json;
  idRec: string;
  status: 'CRIADA' | 'APROVADA' | 'REJEITADA' | 'EXPIRADA' | 'CANCELADA';
  atualizacao: { status: string; data: string }[];
  encerramento?: Json;
  loc: Json;
  tipoJornada: string;
}

export interface StandInCobr {
  body: Json;
  txid: string;
  status: 'CRIADA' | 'ATIVA' | 'CONCLUIDA' | 'EXPIRADA' | 'REJEITADA' | 'CANCELADA';
  atualizacao: { status: string; data: string }[];
  tentativas: Json[];
  pix: Json[];
  criacao: string;
}

const e2e = () => `E${ISPB}${new Date().toISOString().replace(/\D/g, '').slice(0, 12)}${randomBytes(6).toString('hex').slice(0, 11)}`;
const daysBetween = (from: string, to: string) => Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000);
const unknownFields = (body: Json, known: string[]) => Object.keys(body ?? {}).filter((k) => !known.includes(k));

export class AutomaticoStandIn {
  readonly locs = new Map<number, Json>();
  readonly recs = new Map<string, StandInRec>();
  readonly cobrs = new Map<string, StandInCobr>();
  private nextLoc = 100;

  constructor(private readonly host: AutomaticoHost) {}

  /** Handles the Pix Automático paths; false for any other. */
  handle(method: string, path: string, body: any, send: Send, problem: Problem, query = new URLSearchParams()): boolean {
    let m: RegExpExecArray | null;
    const now = this.host.now().toISOString();
    if (method === 'GET' && (path === '/rec' || path === '/cobr')) return this.list(path, query, send, problem), true;
    if (path === '/locrec' && method === 'POST') {
      if (body?.tipo !== 'rec' || unknownFields(body, ['tipo']).length) return void problem(400, 'PayloadLocationRecOperacaoInvalida', 'the body is {tipo: "rec"}'), true;
      const id = this.nextLoc++;
      const loc = { id, location: `${this.host.locationHost}/qr/v2/rec/${randomBytes(16).toString('hex')}`, tipo: 'rec', criacao: now };
      this.locs.set(id, loc);
      return send(201, loc), true;
    }
    if ((m = /^\/locrec\/(\d+)$/.exec(path)) && method === 'GET') {
      const loc = this.locs.get(Number(m[1]));
      return loc ? send(200, loc) : problem(404, 'PayloadLocationRecNaoEncontrado', 'no such location'), true;
    }
    if (path === '/rec' && method === 'POST') {
      const wrong = recProblem(body, this.locs, (txid) => this.host.hasActiveCharge(txid), this.recs, this.host.today());
      if (wrong) return problem(400, 'RecOperacaoInvalida', wrong), true;
      const idRec = `${body.politicaRetentativa === 'NAO_PERMITE' ? 'RN' : 'RR'}${ISPB}${this.host.today().replace(/-/g, '')}${randomBytes(8).toString('hex').slice(0, 11)}`;
      const loc = { ...this.locs.get(body.loc), idRec };
      this.locs.set(body.loc, loc);
      const rec: StandInRec = { body, idRec, status: 'CRIADA', atualizacao: [{ status: 'CRIADA', data: now }], loc, tipoJornada: 'AGUARDANDO_DEFINICAO' };
      this.recs.set(idRec, rec);
      return send(201, this.recView(rec)), true;
    }
    if ((m = /^\/rec\/([^/?]+)$/.exec(path))) {
      const rec = this.recs.get(m[1]);
      if (method === 'GET' && !rec) return problem(404, 'RecNaoEncontrado', 'no such recurrence'), true;
      if (method === 'GET') {
        const txid = query.get('txid');
        if (txid === null) return send(200, this.recView(rec!)), true;
        if (txid !== rec!.body.ativacao.dadosJornada.txid) return problem(400, 'RecConsultaInvalida', 'txid is not the immediate charge of ativacao.dadosJornada.txid'), true;
        return send(200, { ...this.recView(rec!), dadosQR: { jornada: 'JORNADA_3', pixCopiaECola: this.compositeOf(rec!) } }), true;
      }
      if (method !== 'PATCH') return false;
      if (!rec) return problem(404, 'RecNaoEncontrado', 'no such recurrence'), true;
      if (body?.status !== 'CANCELADA' || unknownFields(body, ['status', 'vinculo', 'loc', 'calendario', 'ativacao']).length) return problem(400, 'RecOperacaoInvalida', 'status may only become CANCELADA'), true;
      if (rec.status !== 'CRIADA' && rec.status !== 'APROVADA') return problem(400, 'RecOperacaoInvalida', 'A recorrência encontra-se expirada, cancelada ou rejeitada.'), true;
      this.end(rec, 'CANCELADA', { cancelamento: { solicitante: 'USUARIO_RECEBEDOR', codigo: 'SLCR', descricao: 'Cancelada pelo usuário recebedor' } });
      void this.host.post('/rec', { recs: [this.notification(rec)] });
      return send(200, this.recView(rec)), true;
    }
    if ((m = /^\/cobr\/([^/]+)$/.exec(path))) return this.cobr(method, m[1], body, send, problem);
    if ((m = /^\/cobr\/([^/]+)\/retentativa\/([^/]+)$/.exec(path)) && method === 'POST') {
      const cobr = this.cobrs.get(m[1]);
      if (!cobr) return problem(404, 'CobRNaoEncontrada', 'no such recurring charge'), true;
      const wrong = this.retryProblem(cobr, m[2]);
      if (wrong) return problem(400, 'CobROperacaoInvalida', wrong), true;
      cobr.tentativas.push({ dataLiquidacao: m[2], tipo: 'RIFL', status: 'SOLICITADA', endToEndId: e2e(), atualizacao: [{ status: 'SOLICITADA', data: now }] });
      return send(201, this.cobrView(cobr)), true;
    }
    return false;
  }

  private cobr(method: string, txid: string, body: any, send: Send, problem: Problem): boolean {
    const cobr = this.cobrs.get(txid);
    if (method === 'GET') return cobr ? send(200, this.cobrView(cobr)) : problem(404, 'CobRNaoEncontrada', 'no such recurring charge'), true;
    if (method === 'PATCH') {
      if (!cobr) return problem(404, 'CobRNaoEncontrada', 'no such recurring charge'), true;
      if (body?.status !== 'CANCELADA' || unknownFields(body, ['status']).length) return problem(400, 'CobROperacaoInvalida', 'status may only become CANCELADA'), true;
      if (cobr.status !== 'ATIVA' && cobr.status !== 'CRIADA') return problem(400, 'CobROperacaoInvalida', `the charge is ${cobr.status}`), true;
      // Today and the first tentative's date are Brasília dates (the host's today()).
      if (this.host.today() >= this.firstAttemptDate(cobr)) return problem(400, 'CobROperacaoInvalida', 'Não é possível cancelar uma cobrança em uma data igual ou maior que a data prevista da primeira tentativa de liquidação.'), true;
      this.move(cobr, 'CANCELADA');
      return send(200, this.cobrView(cobr)), true;
    }
    if (method !== 'PUT') return false;
    if (!TXID.test(txid)) return problem(400, 'CobROperacaoInvalida', 'txid must be 26 to 35 alphanumerics'), true;
    const wrong = cobrProblem(body);
    if (wrong) return problem(400, 'CobROperacaoInvalida', wrong), true;
    const rec = this.recs.get(body.idRec);
    if (!rec || rec.status !== 'APROVADA') return problem(400, 'CobROperacaoInvalida', 'idRec names no approved recurrence'), true;
    if (body.valor.original !== rec.body.valor?.valorRec && rec.body.valor?.valorRec) return problem(400, 'CobROperacaoInvalida', 'valor.original differs from the recurrence valorRec'), true;
    // The API Pix window: the cobr goes out 2 to 10 days before its due date.
    const ahead = daysBetween(this.host.today(), body.calendario.dataDeVencimento);
    if (ahead < 2 || ahead > 10) return problem(400, 'CobROperacaoInvalida', `dataDeVencimento must be 2 to 10 days ahead, it is ${ahead}`), true;
    if (cobr) return send(cobr.body.idRec === body.idRec ? 200 : 400, this.cobrView(cobr)), true;
    const now = this.host.now().toISOString();
    const created: StandInCobr = {
      body, txid, status: 'ATIVA', criacao: this.host.today(), pix: [],
      atualizacao: [{ status: 'CRIADA', data: now }, { status: 'ATIVA', data: now }],
      tentativas: [{ dataLiquidacao: body.calendario.dataDeVencimento, tipo: 'AGND', status: 'AGENDADA', endToEndId: e2e(), atualizacao: [{ status: 'SOLICITADA', data: now }, { status: 'AGENDADA', data: now }] }],
    };
    this.cobrs.set(txid, created);
    return send(201, this.cobrView(created)), true;
  }

  /** The date of the first settlement tentative (`tentativas[0].dataLiquidacao`: the due date, as `ajusteDiaUtil` false keeps it). */
  private firstAttemptDate(cobr: StandInCobr): string {
    return cobr.tentativas[0]?.dataLiquidacao ?? cobr.body.calendario.dataDeVencimento;
  }

  /** `GET /rec` (RecsConsultadas) and `GET /cobr` (CobsRConsultadas): by creation instant (the first `atualizacao`), filtered, paged. */
  private list(path: '/rec' | '/cobr', query: URLSearchParams, send: Send, problem: Problem): void {
    const rec = path === '/rec';
    const read = readListQuery(query, rec ? REC_FILTERS : COBR_FILTERS);
    if ('violation' in read) return problem(400, rec ? 'RecConsultaInvalida' : 'CobRConsultaInvalida', read.violation);
    const f = read.filters;
    const devedor = (item: Json | undefined) => item?.vinculo?.devedor ?? item?.devedor ?? {};
    if (rec) {
      const recs = [...this.recs.values()].filter((r) => (!f.status || r.status === f.status) && (!f.cpf || devedor(r.body).cpf === f.cpf) && (!f.cnpj || devedor(r.body).cnpj === f.cnpj) && (!f.locationPresente || String(Boolean(r.loc)) === f.locationPresente) && !f.convenio);
      const { parametros, items } = listPage(read, recs, (r) => r.atualizacao[0].data, (r) => r.idRec, this.host.pageSize);
      return send(200, { parametros, recs: items.map((r) => this.recView(r)) });
    }
    const cobrs = [...this.cobrs.values()].filter((c) => {
      const payer = devedor(this.recs.get(c.body.idRec)?.body);
      return (!f.status || c.status === f.status) && (!f.idRec || c.body.idRec === f.idRec) && (!f.cpf || payer.cpf === f.cpf) && (!f.cnpj || payer.cnpj === f.cnpj) && !f.convenio;
    });
    const { parametros, items } = listPage(read, cobrs, (c) => c.atualizacao[0].data, (c) => c.txid, this.host.pageSize);
    send(200, { parametros, cobsr: items.map((c) => this.cobrView(c)) });
  }

  private retryProblem(cobr: StandInCobr, date: string): string | null {
    if (!DATE.test(date)) return 'data must be YYYY-MM-DD';
    const rec = this.recs.get(cobr.body.idRec)!;
    if (rec.body.politicaRetentativa !== 'PERMITE_3R_7D') return 'the recurrence allows no retries';
    if (cobr.status !== 'ATIVA') return `the charge is ${cobr.status}`;
    if (cobr.tentativas.at(-1)?.status !== 'REJEITADA') return 'the last tentative was not refused';
    if (cobr.tentativas.length > MAX_RETRIES) return 'no retries left';
    const after = daysBetween(cobr.body.calendario.dataDeVencimento, date);
    if (after < 1 || after > RETRY_WINDOW_DAYS) return `data must be within ${RETRY_WINDOW_DAYS} days after dataDeVencimento`;
    if (date <= this.host.today()) return 'data must be after today';
    return null;
  }

  /**
   * The payer scans a journey-3 code in their bank app: it reads the charge at the location in
   * 26 and the recurrence at the one in 80, which must start that very charge, then pays and
   * authorizes. A code that is not that is refused (the error names why), and nothing changes.
   */
  async scan(code: string, options: { webhook?: 'deliver' | 'lose'; payWebhook?: 'deliver' | 'lose' } = {}): Promise<string> {
    const read = readCompositeCode(code);
    if ('problem' in read) throw new Error(`the payer's bank cannot read the code: ${read.problem}`);
    const rec = [...this.recs.values()].find((r) => r.loc.location === read.recurrenceLocation);
    if (!rec) throw new Error(`no recurrence at ${read.recurrenceLocation}`);
    const txid = rec.body.ativacao.dadosJornada.txid;
    if (this.host.chargeLocation(txid) !== read.chargeLocation) throw new Error(`the charge at ${read.chargeLocation} is not the one the recurrence starts (${txid})`);
    await this.authorize(rec.idRec, options);
    return rec.idRec;
  }

  /** The composite code of a recurrence and its journey-3 charge (`dadosQR.pixCopiaECola`). */
  compositeOf(rec: StandInRec): string {
    return compositeCode(this.host.chargeLocation(rec.body.ativacao.dadosJornada.txid)!, rec.loc.location, { name: 'LOJA STAND-IN', city: 'BRASILIA' });
  }

  /** The payer authorizes in their bank app, paying the journey-3 immediate charge first. */
  async authorize(idRec: string, options: { webhook?: 'deliver' | 'lose'; payWebhook?: 'deliver' | 'lose' } = {}): Promise<void> {
    const rec = this.pending(idRec, ['CRIADA']);
    await this.host.payCharge(rec.body.ativacao.dadosJornada.txid, options.payWebhook ?? 'deliver');
    rec.tipoJornada = 'JORNADA_3';
    this.move(rec, 'APROVADA');
    if (options.webhook !== 'lose') await this.host.post('/rec', { recs: [this.notification(rec)] });
  }

  async reject(idRec: string, options: { webhook?: 'deliver' | 'lose' } = {}): Promise<void> {
    this.end(this.pending(idRec, ['CRIADA']), 'REJEITADA', { rejeicao: { codigo: 'AP13', descricao: 'Recusada pelo usuário pagador' } });
    if (options.webhook !== 'lose') await this.host.post('/rec', { recs: [this.notification(this.recs.get(idRec)!)] });
  }

  async cancel(idRec: string, options: { webhook?: 'deliver' | 'lose' } = {}): Promise<void> {
    this.end(this.pending(idRec, ['CRIADA', 'APROVADA']), 'CANCELADA', { cancelamento: { solicitante: 'USUARIO_PAGADOR', codigo: 'ACCL', descricao: 'Cancelada pelo usuário pagador' } });
    if (options.webhook !== 'lose') await this.host.post('/rec', { recs: [this.notification(this.recs.get(idRec)!)] });
  }

  /** The payer's PSP settles a cobr's latest tentative: paid (the Pix is listed by `GET /pix`) or refused. */
  async settle(txid: string, result: 'paid' | 'refused' | 'refused_final', options: { webhook?: 'deliver' | 'lose' } = {}): Promise<void> {
    const cobr = this.cobrs.get(txid);
    const tentative = cobr?.tentativas.at(-1);
    if (!cobr || cobr.status !== 'ATIVA' || !tentative || !['SOLICITADA', 'AGENDADA'].includes(tentative.status)) throw new Error(`no tentative of ${txid} to settle`);
    const now = this.host.now().toISOString();
    if (result === 'paid') {
      tentative.status = 'PAGA';
      const pix = { endToEndId: tentative.endToEndId, txid, valor: cobr.body.valor.original, chave: 'automatico', horario: now };
      cobr.pix.push({ ...pix, idRec: cobr.body.idRec });
      this.host.record(pix);
      this.move(cobr, 'CONCLUIDA');
    } else {
      tentative.status = 'REJEITADA';
      tentative.rejeicao = result === 'refused_final' ? STANDIN_FINAL_REFUSAL : STANDIN_REFUSAL;
      if (result === 'refused_final' || cobr.tentativas.length > MAX_RETRIES) this.move(cobr, 'REJEITADA');
    }
    tentative.atualizacao.push({ status: tentative.status, data: now });
    if (options.webhook !== 'lose') await this.host.post('/cobr', { cobsr: [this.notificationOf(cobr)] });
  }

  /** The payer's PSP cancels one cycle's charge before it is settled (the payer asked it in their app). */
  async cancelCobr(txid: string, options: { webhook?: 'deliver' | 'lose' } = {}): Promise<void> {
    const cobr = this.cobrs.get(txid);
    if (!cobr || cobr.status !== 'ATIVA') throw new Error(`no active cobr ${txid}`);
    this.move(cobr, 'CANCELADA');
    cobr.tentativas.at(-1)!.status = 'CANCELADA';
    if (options.webhook !== 'lose') await this.host.post('/cobr', { cobsr: [{ ...this.notificationOf(cobr), encerramento: { cancelamento: { solicitante: 'USUARIO_PAGADOR', codigo: 'CCLD', descricao: 'Cancelada pelo usuário pagador' } } }] });
  }

  private pending(idRec: string, from: string[]): StandInRec {
    const rec = this.recs.get(idRec);
    if (!rec || !from.includes(rec.status)) throw new Error(`recurrence ${idRec} is ${rec?.status ?? 'unknown'}`);
    return rec;
  }

  private move(item: { status: string; atualizacao: { status: string; data: string }[] }, status: string): void {
    item.status = status;
    item.atualizacao.push({ status, data: this.host.now().toISOString() });
  }

  /** A recurrence ends: its charges not settled yet are cancelled with it. */
  private end(rec: StandInRec, status: 'REJEITADA' | 'CANCELADA', encerramento: Json): void {
    this.move(rec, status);
    rec.encerramento = encerramento;
    for (const cobr of this.cobrs.values()) if (cobr.body.idRec === rec.idRec && cobr.status === 'ATIVA') this.move(cobr, 'CANCELADA');
  }

  private notification(rec: StandInRec) {
    const { idRec, status, atualizacao, encerramento } = rec;
    return { idRec, status, atualizacao, ...(encerramento ? { encerramento } : {}), ativacao: { tipoJornada: rec.tipoJornada, dadosJornada: rec.body.ativacao.dadosJornada } };
  }

  private recView(rec: StandInRec) {
    const { loc: _loc, ativacao: _ativacao, ...body } = rec.body;
    return { ...body, ...this.notification(rec), recebedor: { cnpj: '12345678000195', nome: 'Loja Stand-in' }, loc: rec.loc };
  }

  private notificationOf(cobr: StandInCobr) {
    const { txid, status, atualizacao, tentativas, pix } = cobr;
    return { idRec: cobr.body.idRec, txid, status, atualizacao, tentativas, ...(pix.length ? { pix } : {}) };
  }

  private cobrView(cobr: StandInCobr) {
    const rec = this.recs.get(cobr.body.idRec)!;
    return { ...cobr.body, ...this.notificationOf(cobr), calendario: { criacao: cobr.criacao, ...cobr.body.calendario }, politicaRetentativa: rec.body.politicaRetentativa };
  }
}

const REC_STATUSES = ['CRIADA', 'APROVADA', 'REJEITADA', 'EXPIRADA', 'CANCELADA'];
const COBR_STATUSES = ['CRIADA', 'ATIVA', 'CONCLUIDA', 'EXPIRADA', 'REJEITADA', 'CANCELADA'];
/** `GET /rec`'s filters besides cpf and cnpj; `status` is a string in the spec, here one of the statuses it can match. */
const REC_FILTERS: ListFilters = { locationPresente: (v) => v === 'true' || v === 'false', status: (v) => REC_STATUSES.includes(v), convenio: (v) => v.length <= 60 };
/** `GET /cobr`'s. */
const COBR_FILTERS: ListFilters = { idRec: (v) => /^[a-zA-Z0-9]{29}$/.test(v), status: (v) => COBR_STATUSES.includes(v), convenio: (v) => v.length <= 60 };

/** RecSolicitada (openapi.yaml) for journey 3. */
function recProblem(body: Json, locs: Map<number, Json>, chargeExists: (txid: string) => boolean, recs: Map<string, StandInRec>, today: string): string | null {
  const extra = unknownFields(body, ['vinculo', 'calendario', 'valor', 'recebedor', 'politicaRetentativa', 'loc', 'ativacao']);
  if (extra.length) return `unknown fields ${extra.join(', ')}`;
  const v = body?.vinculo;
  if (typeof v?.contrato !== 'string' || v.contrato.length > 35) return 'vinculo.contrato is required, up to 35 characters';
  if (v.objeto !== undefined && (typeof v.objeto !== 'string' || v.objeto.length > 35)) return 'vinculo.objeto is up to 35 characters';
  const d = v.devedor;
  if (typeof d?.nome !== 'string' || d.nome.length > 140) return 'vinculo.devedor.nome is required, up to 140 characters';
  if (!(typeof d.cpf === 'string' ? /^\d{11}$/.test(d.cpf) && d.cnpj === undefined : typeof d.cnpj === 'string' && /^[0-9A-Z]{14}$/.test(d.cnpj))) return 'vinculo.devedor needs cpf (11 digits) or cnpj (14)';
  const c = body.calendario;
  if (!DATE.test(c?.dataInicial ?? '')) return 'calendario.dataInicial is required (YYYY-MM-DD)';
  if (c.dataInicial < today) return 'O campo rec.calendario.dataInicial é anterior à data de criação da recorrência.';
  if (c.dataFinal !== undefined && (!DATE.test(c.dataFinal) || c.dataFinal < c.dataInicial)) return 'calendario.dataFinal must be a date after dataInicial';
  if (!['SEMANAL', 'MENSAL', 'TRIMESTRAL', 'SEMESTRAL', 'ANUAL'].includes(c.periodicidade)) return 'calendario.periodicidade must be SEMANAL, MENSAL, TRIMESTRAL, SEMESTRAL or ANUAL';
  if (body.valor !== undefined && (unknownFields(body.valor, ['valorRec', 'valorMinimoRecebedor']).length || (body.valor.valorRec !== undefined && !VALOR.test(body.valor.valorRec)))) return 'valor.valorRec must match \\d{1,10}\\.\\d{2}';
  if (!['NAO_PERMITE', 'PERMITE_3R_7D'].includes(body.politicaRetentativa)) return 'politicaRetentativa must be NAO_PERMITE or PERMITE_3R_7D';
  if (!Number.isInteger(body.loc) || !locs.has(body.loc)) return 'loc must be the id of a locrec';
  if (locs.get(body.loc)!.idRec) return 'the locrec is taken by another recurrence';
  // Journey 3: the immediate charge paid with the authorization.
  const txid = body.ativacao?.dadosJornada?.txid;
  if (typeof txid !== 'string' || !TXID.test(txid) || !chargeExists(txid)) return 'ativacao.dadosJornada.txid must name an active immediate charge (journey 3)';
  if ([...recs.values()].some((r) => r.body.ativacao.dadosJornada.txid === txid)) return 'that charge starts another recurrence';
  return null;
}

/** CobRSolicitada (openapi.yaml). */
function cobrProblem(body: Json): string | null {
  const extra = unknownFields(body, ['idRec', 'infoAdicional', 'calendario', 'valor', 'ajusteDiaUtil', 'recebedor', 'devedor']);
  if (extra.length) return `unknown fields ${extra.join(', ')}`;
  if (typeof body?.idRec !== 'string' || !/^[a-zA-Z0-9]{29}$/.test(body.idRec)) return 'idRec is required (29 alphanumerics)';
  if (!DATE.test(body.calendario?.dataDeVencimento ?? '')) return 'calendario.dataDeVencimento is required (YYYY-MM-DD)';
  if (!VALOR.test(body.valor?.original ?? '')) return 'valor.original must match \\d{1,10}\\.\\d{2}';
  if (typeof body.ajusteDiaUtil !== 'boolean') return 'ajusteDiaUtil is required (boolean)';
  const r = body.recebedor;
  if (typeof r?.conta !== 'string' || r.conta.length > 20) return 'recebedor.conta is required, up to 20 characters';
  if (!['CORRENTE', 'POUPANCA', 'PAGAMENTO'].includes(r.tipoConta)) return 'recebedor.tipoConta must be CORRENTE, POUPANCA or PAGAMENTO';
  if (r.agencia !== undefined && (typeof r.agencia !== 'string' || r.agencia.length > 4)) return 'recebedor.agencia is up to 4 characters';
  if (body.infoAdicional !== undefined && (typeof body.infoAdicional !== 'string' || body.infoAdicional.length > 140)) return 'infoAdicional is up to 140 characters';
  return null;
}
