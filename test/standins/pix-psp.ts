/**
 * A stand-in of a PSP implementing the Central Bank's API Pix (v2) over real HTTP(S), for the
 * Pix connector's tests. Written from the published specification (bacen/pix-api, openapi.yaml):
 * OAuth2 client credentials (`POST /oauth/token`), `PUT/GET /cob/{txid}`, `PUT /cobv/{txid}`,
 * `GET /pix?inicio=&fim=` with `paginacao`, `GET /pix/{e2eid}`, `PUT` and `GET
 * /pix/{e2eid}/devolucao/{id}`, `PUT /webhook/{chave}`, Pix Automático (./pix-psp-automatico.ts),
 * and the webhook calls (`POST <webhookUrl>/pix`, body `{pix: [...]}`, also when a devolução
 * reaches DEVOLVIDO or NAO_REALIZADO). With `tls` it demands a client certificate signed by its
 * CA (mutual TLS), as every PSP does.
 *
 * The payer is played in-process: `pay(txid)` settles a Pix to a charge and notifies the
 * gateway's webhook, unless told to lose that call. So is MED, as the receiver's PSP runs it:
 * `openMed` blocks part of a Pix (no devolução may take it meanwhile); `loseMed` makes the MED
 * return itself from the blocked amount (natureza MED_FRAUDE or MED_OPERACIONAL), shown in `GET
 * /pix` and reported by webhook. A devolução request may name only ORIGINAL or RETIRADA.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { AutomaticoStandIn } from './pix-psp-automatico.js';
import { listPage, readListQuery } from './pix-psp-lists.js';

export const STANDIN_PIX_CLIENT_ID = 'standin-pix-client';
/** Holds the characters RFC 6749's form-encoding changes (`+ / = %` and a space): a raw one is refused. */
export const STANDIN_PIX_CLIENT_SECRET = 'standin+pix/secret=for%tests only';

/**
 * The client of a token request as a strict server reads it (RFC 6749 section 2.3.1): Basic,
 * split at the first colon, each part form-decoded (`+` is a space, `%XX` a byte). Undefined when
 * the header is not that, or a part is not valid form-encoding.
 */
export function basicClient(header: string | undefined): { id: string; secret: string } | undefined {
  const [scheme, encoded] = (header ?? '').split(' ');
  if (scheme !== 'Basic' || !encoded) return undefined;
  const pair = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = pair.indexOf(':');
  if (colon < 0) return undefined;
  const decode = (part: string) => {
    if (/%(?![0-9A-Fa-f]{2})/.test(part)) return undefined;
    return decodeURIComponent(part.replace(/\+/g, ' '));
  };
  const id = decode(pair.slice(0, colon));
  const secret = decode(pair.slice(colon + 1));
  return id === undefined || secret === undefined ? undefined : { id, secret };
}
export const STANDIN_PIX_KEY = 'a1b2c3d4-0000-4000-8000-standin00001';
/** `GET /pix`'s filters besides cpf and cnpj (this stand-in keeps no payer, so those select nothing). */
const PIX_FILTERS = { txid: (v: string) => /^[a-zA-Z0-9]{1,35}$/.test(v), txIdPresente: (v: string) => v === 'true' || v === 'false', devolucaoPresente: (v: string) => v === 'true' || v === 'false' };
/** The host its locations name (a bank app would read the payloads there; the tests read the codes). */
const LOCATION_HOST = 'pix.standin.example';
const BASE = '/api/v2';
/** en-CA writes YYYY-MM-DD; the zone's rules come from the runtime's time zone data, not from the gateway's code. */
const SAO_PAULO_DAY = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo', year: 'numeric', month: '2-digit', day: '2-digit' });
const VALOR = /^\d{1,10}\.\d{2}$/;

export interface PixStandInOptions {
  port?: number;
  tls?: { certFile: string; keyFile: string; caFile: string };
  /** The gateway's webhook: the URL registered (the stand-in appends `/pix`) and the secret it sends as a bearer token. */
  webhook?: { url: string; secret: string };
  /** The most items a page of `GET /pix`, `/rec` or `/cobr` holds (small in tests, so that paging is exercised). */
  pageSize?: number;
  /** The host its locations name (default pix.standin.example). */
  locationHost?: string;
  /** Its clock, for Pix Automático's dates (the gateway's sandbox clock in tests); default the wall clock. */
  now?: () => Date;
}

export interface StandInCharge {
  kind: 'cob' | 'cobv';
  txid: string;
  body: Record<string, any>;
  status: 'ATIVA' | 'CONCLUIDA' | 'REMOVIDA_PELO_USUARIO_RECEBEDOR' | 'REMOVIDA_PELO_PSP';
  location: string;
  criacao: string;
  revisao: number;
}

export interface StandInPix {
  endToEndId: string;
  txid?: string;
  valor: string;
  chave: string;
  horario: string;
  devolucoes: StandInDevolucao[];
}

export interface StandInDevolucao {
  id: string;
  rtrId: string;
  valor: string;
  natureza: string;
  descricao?: string;
  horario: { solicitacao: string; liquidacao?: string };
  status: 'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO';
  motivo?: string;
}

export class PixStandIn {
  readonly charges = new Map<string, StandInCharge>();
  readonly received: StandInPix[] = [];
  /** Every request the gateway made (method, path, authorization scheme): the tests check what was sent. */
  readonly requests: { method: string; path: string; body: unknown }[] = [];
  readonly webhookCalls: { status: number | string }[] = [];
  /** How a new devolução is answered: settled at once, or in process until `settleDevolucao`. */
  devolucaoAnswer: 'DEVOLVIDO' | 'EM_PROCESSAMENTO' = 'DEVOLVIDO';
  /** The next `PUT .../devolucao` loses its answer: `after` the devolução is recorded, or `before` (it never arrived). */
  dropNextDevolucao: 'after' | 'before' | null = null;
  /** Every API call answers 503 (ServicoIndisponivel) while set. */
  unavailable = false;
  /** MED blocks by endToEndId: the cents the PSP holds for an open claim (cautionary block). */
  readonly medBlocks = new Map<string, bigint>();
  private readonly tokens = new Set<string>();
  private server?: http.Server;
  private webhook?: { url: string; secret: string };
  baseUrl = '';
  tokenUrl = '';
  /** Sees each token request's Authorization header (a test of the client's encoding). */
  onTokenRequest?: (authorization: string | undefined) => void;
  /** Pix Automático: recurrences, their cycle charges, and the payer's answers (./pix-psp-automatico.ts). */
  readonly automatico: AutomaticoStandIn;

  constructor(private readonly options: PixStandInOptions = {}) {
    this.webhook = options.webhook;
    this.automatico = new AutomaticoStandIn({
      payCharge: (txid, webhook) => this.pay(txid, { webhook }),
      hasActiveCharge: (txid) => this.charges.get(txid)?.status === 'ATIVA',
      chargeLocation: (txid) => (this.charges.get(txid)?.kind === 'cob' ? this.charges.get(txid)!.location : undefined),
      post: (suffix, body) => this.post(suffix, body),
      record: (pix) => void this.received.push({ ...pix, chave: STANDIN_PIX_KEY, devolucoes: [] }),
      today: () => this.today(),
      now: () => options.now?.() ?? new Date(),
      locationHost: options.locationHost ?? LOCATION_HOST,
      pageSize: options.pageSize ?? 1000,
    });
  }

  async start(): Promise<this> {
    const handler = (req: http.IncomingMessage, res: http.ServerResponse) => void this.handle(req, res);
    this.server = this.options.tls
      ? https.createServer(
          { cert: readFileSync(this.options.tls.certFile), key: readFileSync(this.options.tls.keyFile), ca: readFileSync(this.options.tls.caFile), requestCert: true, rejectUnauthorized: true },
          handler,
        )
      : http.createServer(handler);
    await new Promise<void>((resolve) => this.server!.listen(this.options.port ?? 0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    const origin = `${this.options.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
    this.baseUrl = `${origin}${BASE}`;
    this.tokenUrl = `${origin}/oauth/token`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  /** Today as the API Pix counts its dates: the calendar day in America/Sao_Paulo, whatever this machine's zone. */
  today(): string {
    return SAO_PAULO_DAY.format(this.options.now?.() ?? new Date());
  }

  /** How many calls the gateway made to `method` `path` (the path without its query): a list's pages, say. */
  calls(method: string, path: string): number {
    return this.requests.filter((r) => r.method === method && r.path.split('?')[0] === path).length;
  }

  setWebhook(webhook: { url: string; secret: string }): void {
    this.webhook = webhook;
  }

  /**
   * The payer pays a charge (its whole amount unless `valor` says otherwise). `webhook: 'lose'`
   * settles the Pix but its notification never reaches the gateway (only `GET /pix` shows it).
   */
  async pay(txid: string, options: { valor?: string; webhook?: 'deliver' | 'lose'; horario?: Date } = {}): Promise<StandInPix> {
    const charge = this.charges.get(txid);
    if (!charge || charge.status !== 'ATIVA') throw new Error(`no active charge ${txid}`);
    charge.status = 'CONCLUIDA';
    const horario = options.horario ?? this.options.now?.() ?? new Date();
    const stamp = horario.toISOString().replace(/\D/g, '').slice(0, 12);
    const pix: StandInPix = {
      endToEndId: `E12345678${stamp}${randomBytes(6).toString('hex').slice(0, 11)}`,
      txid,
      valor: options.valor ?? charge.body.valor.original,
      chave: charge.body.chave,
      horario: horario.toISOString(),
      devolucoes: [],
    };
    this.received.push(pix);
    if (options.webhook !== 'lose') await this.notify([pix]);
    return pix;
  }

  /** POSTs `{pix: [...]}` to the registered webhook, as the PSP does (again, for a retry or a duplicate). */
  async notify(items: StandInPix[], options: { secret?: string | null } = {}): Promise<number | string> {
    return this.post('/pix', { pix: items.map(({ devolucoes, ...item }) => (devolucoes.length ? { ...item, devolucoes } : item)) }, options);
  }

  /** POSTs a notification to `<webhookUrl><suffix>` (`/pix`, `/rec`, `/cobr`), as the API Pix's callbacks say. */
  async post(suffix: string, payload: unknown, options: { secret?: string | null } = {}): Promise<number | string> {
    if (!this.webhook) throw new Error('no webhook registered');
    const secret = options.secret === undefined ? this.webhook.secret : options.secret;
    const body = JSON.stringify(payload);
    let status: number | string;
    try {
      const answer = await fetch(`${this.webhook.url}${suffix}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(secret === null ? {} : { authorization: `Bearer ${secret}` }) },
        body,
      });
      status = answer.status;
      await answer.arrayBuffer();
    } catch (error) {
      status = (error as Error).message;
    }
    this.webhookCalls.push({ status });
    return status;
  }

  /**
   * A devolução in process reaches its final status, and (unless `webhook: 'lose'`) the PSP
   * calls the webhook with the Pix and its devoluções, as the API Pix's callback says.
   */
  async settleDevolucao(endToEndId: string, id: string, status: 'DEVOLVIDO' | 'NAO_REALIZADO', options: { motivo?: string; webhook?: 'deliver' | 'lose' } = {}): Promise<void> {
    const pix = this.received.find((p) => p.endToEndId === endToEndId);
    const devolucao = pix?.devolucoes.find((d) => d.id === id);
    if (!pix || !devolucao) throw new Error(`no devolução ${id} of ${endToEndId}`);
    devolucao.status = status;
    devolucao.horario.liquidacao = new Date().toISOString();
    if (options.motivo) devolucao.motivo = options.motivo;
    if (options.webhook !== 'lose') await this.notify([pix]);
  }

  /** `PUT .../devolucao/...` requests the gateway sent, for one Pix or all: the tests prove none went out for a MED claim. */
  devolucaoRequests(endToEndId?: string): number {
    return this.requests.filter((r) => r.method === 'PUT' && /^\/pix\/[^/]+\/devolucao\//.test(r.path) && (endToEndId === undefined || r.path.startsWith(`/pix/${endToEndId}/`))).length;
  }

  /** The payer's PSP opens a MED claim and this PSP blocks `valor` of the Pix (by default what no devolução took). */
  openMed(endToEndId: string, valor?: string): void {
    const pix = this.pix(endToEndId);
    const left = cents(pix.valor) - taken(pix);
    const blocked = valor === undefined ? left : cents(valor);
    if (blocked < 1n || blocked > left) throw new Error(`cannot block ${valor} of ${endToEndId}`);
    this.medBlocks.set(endToEndId, blocked);
  }

  /**
   * The claim is decided against the receiver: this PSP makes the MED return itself, from the
   * blocked amount (all of it, or `valor`), its own devolução id and rtrId, DEVOLVIDO, and (unless
   * `webhook: 'lose'`) calls the webhook with the Pix and its devoluções.
   */
  async loseMed(endToEndId: string, options: { natureza?: 'MED_FRAUDE' | 'MED_OPERACIONAL'; valor?: string; webhook?: 'deliver' | 'lose' } = {}): Promise<StandInDevolucao> {
    const pix = this.pix(endToEndId);
    const blocked = this.medBlocks.get(endToEndId);
    if (blocked === undefined) throw new Error(`no MED block on ${endToEndId}`);
    const valor = options.valor ?? `${blocked / 100n}.${String(blocked % 100n).padStart(2, '0')}`;
    if (cents(valor) > blocked) throw new Error('a MED return takes at most what was blocked');
    this.medBlocks.delete(endToEndId);
    const now = new Date().toISOString();
    const devolucao: StandInDevolucao = {
      id: `MED${randomBytes(8).toString('hex').toUpperCase()}`,
      rtrId: `D12345678${now.replace(/\D/g, '').slice(0, 12)}${randomBytes(6).toString('hex').slice(0, 11)}`,
      valor,
      natureza: options.natureza ?? 'MED_FRAUDE',
      horario: { solicitacao: now, liquidacao: now },
      status: 'DEVOLVIDO',
    };
    pix.devolucoes.push(devolucao);
    if (options.webhook !== 'lose') await this.notify([pix]);
    return devolucao;
  }

  /** The claim is decided for the receiver: the block is lifted. */
  releaseMed(endToEndId: string): void {
    this.medBlocks.delete(endToEndId);
  }

  private pix(endToEndId: string): StandInPix {
    const pix = this.received.find((p) => p.endToEndId === endToEndId);
    if (!pix) throw new Error(`no Pix ${endToEndId}`);
    return pix;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://standin');
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const send = (status: number, body?: unknown) => {
      res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' });
      res.end(body === undefined ? undefined : JSON.stringify(body));
    };
    const problem = (status: number, title: string, detail: string) => send(status, { type: `https://pix.bcb.gov.br/api/v2/error/${title}`, title, status, detail });

    if (req.method === 'POST' && url.pathname === '/oauth/token') {
      this.onTokenRequest?.(req.headers.authorization);
      const client = basicClient(req.headers.authorization);
      if (client?.id !== STANDIN_PIX_CLIENT_ID || client.secret !== STANDIN_PIX_CLIENT_SECRET) return send(401, { error: 'invalid_client' });
      if (new URLSearchParams(raw).get('grant_type') !== 'client_credentials') return send(400, { error: 'unsupported_grant_type' });
      const token = randomUUID();
      this.tokens.add(token);
      return send(200, { access_token: token, token_type: 'Bearer', expires_in: 3600, scope: 'cob.write cob.read cobv.write pix.read pix.write webhook.write rec.write rec.read cobr.write cobr.read payloadlocationrec.write' });
    }
    if (!url.pathname.startsWith(`${BASE}/`)) return problem(404, 'NaoEncontrado', 'no such path');
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!bearer || !this.tokens.has(bearer)) return send(401, { error: 'invalid_token' });
    let body: any = null;
    try {
      body = raw === '' ? null : JSON.parse(raw);
    } catch {
      return problem(400, 'RequisicaoInvalida', 'the body is not JSON');
    }
    if (this.unavailable) return problem(503, 'ServicoIndisponivel', 'try again later');
    const path = url.pathname.slice(BASE.length);
    this.requests.push({ method: req.method ?? '', path: path + url.search, body });
    let m: RegExpExecArray | null;

    if ((m = /^\/(cob|cobv)\/([^/]+)$/.exec(path)) && req.method === 'PUT') {
      const [, kind, txid] = m as unknown as [string, 'cob' | 'cobv', string];
      if (!/^[a-zA-Z0-9]{26,35}$/.test(txid)) return problem(400, 'CobOperacaoInvalida', 'txid must be 26 to 35 alphanumerics');
      if (!VALOR.test(body?.valor?.original ?? '')) return problem(400, 'CobOperacaoInvalida', 'valor.original must be a decimal string with 2 decimals');
      if (body?.chave !== STANDIN_PIX_KEY) return problem(400, 'CobOperacaoInvalida', 'chave is not a key of this account');
      if (kind === 'cob' && !(Number.isInteger(body?.calendario?.expiracao) && body.calendario.expiracao > 0)) return problem(400, 'CobOperacaoInvalida', 'calendario.expiracao must be a positive integer');
      if (kind === 'cobv') {
        if (!/^\d{4}-\d{2}-\d{2}$/.test(body?.calendario?.dataDeVencimento ?? '')) return problem(400, 'CobVOperacaoInvalida', 'calendario.dataDeVencimento is required');
        if (!this.charges.has(txid) && body.calendario.dataDeVencimento < this.today()) return problem(400, 'CobVOperacaoInvalida', 'O campo cobv.calendario.dataDeVencimento é anterior à data de criação da cobrança.');
        if (!body?.devedor?.nome || !(body.devedor.cpf || body.devedor.cnpj)) return problem(400, 'CobVOperacaoInvalida', 'devedor (cpf or cnpj, and nome) is required');
        const terms = cobvValorProblem(body.valor, body.calendario.dataDeVencimento);
        if (terms) return problem(400, 'CobVOperacaoInvalida', terms);
      }
      const existing = this.charges.get(txid);
      if (existing && existing.status !== 'ATIVA') return problem(400, 'CobOperacaoInvalida', `the charge is ${existing.status}`);
      const charge: StandInCharge = existing ?? { kind, txid, body, status: 'ATIVA', location: `${this.options.locationHost ?? LOCATION_HOST}/qr/v2/${kind === 'cobv' ? 'cobv/' : ''}${randomUUID().replace(/-/g, '')}`, criacao: new Date().toISOString(), revisao: 0 };
      if (existing) {
        charge.body = body;
        charge.revisao++;
      }
      this.charges.set(txid, charge);
      return send(existing ? 200 : 201, this.chargeView(charge));
    }
    if ((m = /^\/(cob|cobv)\/([^/]+)$/.exec(path)) && req.method === 'PATCH') {
      // CobOperacaoInvalida / CobVOperacaoInvalida, violations of PATCH: a charge not ATIVA is not
      // changed (ATIVA is the record's status, whatever its dates), and a removal comes alone.
      const invalid = m[1] === 'cobv' ? 'CobVOperacaoInvalida' : 'CobOperacaoInvalida';
      const charge = this.charges.get(m[2]);
      if (!charge) return problem(404, m[1] === 'cobv' ? 'CobVNaoEncontrada' : 'CobNaoEncontrado', 'no such charge');
      if (body?.status !== undefined && body.status !== 'REMOVIDA_PELO_USUARIO_RECEBEDOR') return problem(400, invalid, 'status may only become REMOVIDA_PELO_USUARIO_RECEBEDOR');
      if (charge.status !== 'ATIVA') return problem(400, invalid, 'A cobrança não está ATIVA, e a presente requisição busca alterá-la.');
      if (body?.status && Object.keys(body).length > 1) return problem(400, invalid, 'A cobrança está ATIVA, e a presente requisição propõe alterar seu status para REMOVIDA_PELO_USUARIO_RECEBEDOR juntamente com outras alterações.');
      if (body?.status) charge.status = 'REMOVIDA_PELO_USUARIO_RECEBEDOR';
      charge.revisao++;
      return send(200, this.chargeView(charge));
    }
    if ((m = /^\/(cob|cobv)\/([^/]+)$/.exec(path)) && req.method === 'GET') {
      const charge = this.charges.get(m[2]);
      return charge ? send(200, this.chargeView(charge)) : problem(404, 'CobNaoEncontrado', 'no such charge');
    }
    if (path === '/pix' && req.method === 'GET') {
      const query = readListQuery(url.searchParams, PIX_FILTERS);
      if ('violation' in query) return problem(400, 'PixConsultaInvalida', query.violation);
      const f = query.filters;
      const all = this.received.filter((p) => (!f.txid || p.txid === f.txid) && (!f.txIdPresente || String(Boolean(p.txid)) === f.txIdPresente) && (!f.devolucaoPresente || String(p.devolucoes.length > 0) === f.devolucaoPresente) && !f.cpf && !f.cnpj);
      const { parametros, items } = listPage(query, all, (p) => p.horario, (p) => p.endToEndId, this.options.pageSize ?? 1000);
      return send(200, { parametros, pix: items });
    }
    if ((m = /^\/pix\/([^/]+)$/.exec(path)) && req.method === 'GET') {
      const pix = this.received.find((p) => p.endToEndId === m![1]);
      if (!pix) return problem(404, 'PixNaoEncontrado', 'no such Pix');
      const { devolucoes, ...item } = pix;
      return send(200, devolucoes.length ? { ...item, devolucoes } : item);
    }
    if ((m = /^\/pix\/([^/]+)\/devolucao\/([^/]+)$/.exec(path)) && req.method === 'PUT') {
      if (this.dropNextDevolucao === 'before') {
        this.dropNextDevolucao = null;
        return void res.socket?.destroy();
      }
      const pix = this.received.find((p) => p.endToEndId === m![1]);
      if (!pix) return problem(404, 'PixNaoEncontrado', 'no such Pix');
      // DevolucaoSolicitada: valor required; natureza ORIGINAL or RETIRADA; descricao up to 140.
      if (!/^[a-zA-Z0-9]{1,35}$/.test(m[2])) return problem(400, 'PixDevolucaoInvalida', 'id must be 1 to 35 alphanumerics');
      if (!VALOR.test(body?.valor ?? '')) return problem(400, 'PixDevolucaoInvalida', 'valor must be a decimal string with 2 decimals');
      if (body.natureza !== undefined && !['ORIGINAL', 'RETIRADA'].includes(body.natureza)) return problem(400, 'PixDevolucaoInvalida', 'natureza must be ORIGINAL or RETIRADA');
      if (body.descricao !== undefined && (typeof body.descricao !== 'string' || body.descricao.length > 140)) return problem(400, 'PixDevolucaoInvalida', 'descricao is up to 140 characters');
      const unknown = Object.keys(body).filter((k) => !['valor', 'natureza', 'descricao'].includes(k));
      if (unknown.length) return problem(400, 'PixDevolucaoInvalida', `unknown fields ${unknown.join(', ')}`);
      const same = pix.devolucoes.find((d) => d.id === m![2]);
      if (same) return same.valor === body.valor ? send(201, same) : problem(409, 'DevolucaoIdJaUtilizado', 'this id was used with another valor');
      if (taken(pix) + cents(body.valor) > cents(pix.valor)) return problem(400, 'PixDevolucaoInvalida', 'the refunds would exceed the Pix');
      // What a MED claim blocked is the PSP's to return, not the receiver's.
      if (taken(pix) + cents(body.valor) > cents(pix.valor) - (this.medBlocks.get(pix.endToEndId) ?? 0n)) return problem(400, 'PixDevolucaoInvalida', 'part of this Pix is blocked by a MED claim');
      const now = new Date().toISOString();
      const settled = this.devolucaoAnswer === 'DEVOLVIDO';
      const devolucao: StandInDevolucao = {
        id: m[2],
        rtrId: `D12345678${now.replace(/\D/g, '').slice(0, 12)}${randomBytes(6).toString('hex').slice(0, 11)}`,
        valor: body.valor,
        natureza: body.natureza ?? 'ORIGINAL',
        ...(body.descricao ? { descricao: body.descricao } : {}),
        horario: settled ? { solicitacao: now, liquidacao: now } : { solicitacao: now },
        status: this.devolucaoAnswer,
      };
      pix.devolucoes.push(devolucao);
      if (this.dropNextDevolucao === 'after') {
        this.dropNextDevolucao = null;
        return void res.socket?.destroy();
      }
      return send(201, devolucao);
    }
    if ((m = /^\/pix\/([^/]+)\/devolucao\/([^/]+)$/.exec(path)) && req.method === 'GET') {
      const devolucao = this.received.find((p) => p.endToEndId === m![1])?.devolucoes.find((d) => d.id === m![2]);
      return devolucao ? send(200, devolucao) : problem(404, 'PixDevolucaoNaoEncontrada', 'no such devolução');
    }
    if ((m = /^\/webhook\/([^/]+)$/.exec(path)) && req.method === 'PUT') {
      if (typeof body?.webhookUrl !== 'string') return problem(400, 'WebhookOperacaoInvalida', 'webhookUrl is required');
      this.webhook = { url: body.webhookUrl, secret: this.webhook?.secret ?? '' };
      return send(204);
    }
    if (this.automatico.handle(req.method ?? '', path, body, send, problem, url.searchParams)) return;
    return problem(404, 'NaoEncontrado', 'no such operation');
  }

  private chargeView(charge: StandInCharge) {
    return {
      ...charge.body,
      calendario: { criacao: charge.criacao, ...charge.body.calendario },
      txid: charge.txid,
      revisao: charge.revisao,
      status: charge.status,
      loc: { id: 1, location: charge.location, tipoCob: charge.kind, criacao: charge.criacao },
      location: charge.location,
    };
  }
}

const cents = (v: string) => BigInt(v.replace('.', ''));
/** Cents of a Pix its devoluções took or may still take (all but those NAO_REALIZADO). */
const taken = (pix: StandInPix) => pix.devolucoes.filter((d) => d.status !== 'NAO_REALIZADO').reduce((sum, d) => sum + cents(d.valor), 0n);

/**
 * As its own process (for trying the connector by hand):
 *   node --import tsx test/standins/pix-psp.ts --port 0 [--cert F --key F --ca F] [--webhook-url URL --webhook-secret S]
 */
async function main(): Promise<void> {
  const { parseArgs } = await import('node:util');
  const { values } = parseArgs({
    options: { port: { type: 'string', default: '0' }, cert: { type: 'string' }, key: { type: 'string' }, ca: { type: 'string' }, 'webhook-url': { type: 'string' }, 'webhook-secret': { type: 'string' } },
  });
  const tls = values.cert && values.key && values.ca ? { certFile: values.cert, keyFile: values.key, caFile: values.ca } : undefined;
  const webhook = values['webhook-url'] ? { url: values['webhook-url'], secret: values['webhook-secret'] ?? '' } : undefined;
  const psp = await new PixStandIn({ port: Number(values.port), tls, webhook }).start();
  process.stdout.write(`${JSON.stringify({ apiUrl: psp.baseUrl, tokenUrl: psp.tokenUrl, clientId: STANDIN_PIX_CLIENT_ID, pixKey: STANDIN_PIX_KEY })}\n`);
}

if (import.meta.url === (await import('node:url')).pathToFileURL(process.argv[1] ?? '').href) void main();

/**
 * `CobVValor` (openapi.yaml): multa {modalidade 1..2, valorPerc}, juros {modalidade 1..8,
 * valorPerc}, abatimento {modalidade 1..2, valorPerc}, desconto {modalidade 1..6, and for 1 and 2
 * descontoDataFixa: 1 to 3 {data <= dataDeVencimento, valorPerc}, else valorPerc}.
 */
function cobvValorProblem(valor: any, dueDate: string): string | null {
  const known = new Set(['original', 'multa', 'juros', 'abatimento', 'desconto']);
  for (const key of Object.keys(valor ?? {})) if (!known.has(key)) return `valor.${key} is not a field of CobVValor`;
  const ranged = (name: string, max: number): string | null => {
    const item = valor[name];
    if (item === undefined) return null;
    if (!Number.isInteger(item?.modalidade) || item.modalidade < 1 || item.modalidade > max) return `valor.${name}.modalidade must be 1 to ${max}`;
    if (name !== 'desconto' && !VALOR.test(item.valorPerc ?? '')) return `valor.${name}.valorPerc must match \\d{1,10}\\.\\d{2}`;
    return null;
  };
  const problem = ranged('multa', 2) ?? ranged('juros', 8) ?? ranged('abatimento', 2) ?? ranged('desconto', 6);
  if (problem || valor.desconto === undefined) return problem;
  const { modalidade, descontoDataFixa, valorPerc } = valor.desconto;
  if (modalidade <= 2) {
    if (!Array.isArray(descontoDataFixa) || descontoDataFixa.length < 1 || descontoDataFixa.length > 3) return 'valor.desconto.descontoDataFixa must hold 1 to 3 items';
    for (const item of descontoDataFixa) {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(item?.data ?? '') || !VALOR.test(item?.valorPerc ?? '')) return 'valor.desconto.descontoDataFixa items need data and valorPerc';
      if (item.data > dueDate) return 'valor.desconto.descontoDataFixa data must not be after dataDeVencimento';
    }
  } else if (!VALOR.test(valorPerc ?? '')) return 'valor.desconto.valorPerc is required';
  return null;
}
