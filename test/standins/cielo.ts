/**
 * A stand-in of the Cielo E-commerce API 3.0 over real HTTP, for the Cielo connector's tests,
 * the crash soak and the benchmark. It serves the transactional API and the query API on two
 * listeners sharing one in-memory state, answers with the sandbox ("Simulado") outcomes, and
 * can be made to fail the ways a network and an acquirer fail (see `CieloFaults`), in-process
 * or over HTTP under `/__standin/` on the API port so another process can drive it.
 *
 *   node --import tsx test/standins/cielo.ts --port 0 [--query-port N] [--latency 50] [--merchant-id X --merchant-key Y]
 *
 * Card numbers and security codes never outlive the request that carried them: a sale keeps
 * the masked number, a forced outcome the number's SHA-256.
 */
import { createHash, randomInt, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import {
  CIELO_ERRORS,
  STATUS,
  approvedOutcome,
  cieloDate,
  isApproved,
  makeTid,
  maskCardNumber,
  operationBody,
  sandboxOutcome,
  saleBody,
  storedCredentialFieldsOf,
  storedCredentialProblem,
  validateSale,
  type SaleAuthentication,
  validateZeroAuth,
  type StoredCredentialFields,
  type Outcome,
  type SaleRecord,
} from './cielo-protocol.js';

export { CIELO_BRANDS, CIELO_ERRORS, type CieloBrand, type CieloError, type Outcome, type SaleRecord } from './cielo-protocol.js';

/** Fixed credentials of the stand-in (not Cielo's published sandbox ones, so a mix-up cannot reach Cielo). */
export const STANDIN_MERCHANT_ID = 'c1e10000-5a4d-4b1e-9c1e-10c1e10c1e10';
export const STANDIN_MERCHANT_KEY = 'STANDINCIELOMERCHANTKEYFORTESTSONLYABCDE';

/** The gateway's settings that point ACQUIRER=cielo at a running stand-in. */
export function gatewayEnvFor(standIn: { apiUrl: string; queryUrl: string }, timeoutMs?: number): Record<string, string> {
  return {
    ACQUIRER: 'cielo',
    CIELO_API_URL: standIn.apiUrl,
    CIELO_QUERY_URL: standIn.queryUrl,
    CIELO_MERCHANT_ID: STANDIN_MERCHANT_ID,
    CIELO_MERCHANT_KEY: STANDIN_MERCHANT_KEY,
    CIELO_ENVIRONMENT: 'sandbox',
    ...(timeoutMs === undefined ? {} : { ACQUIRER_TIMEOUT_MS: String(timeoutMs) }),
  };
}

export interface CieloStandInOptions {
  /** Transactional API port; 0 (default) picks a free one. */
  port?: number;
  /** Query API port; 0 (default) picks a free one. */
  queryPort?: number;
  /** Baseline latency of every answer; `reset()` comes back to it. */
  latencyMs?: number;
  merchantId?: string;
  merchantKey?: string;
  /** Decides the sandbox's final-digit-9 coin toss (default Math.random). */
  random?: () => number;
}

/** What can go wrong, set with `setFaults` or `POST /__standin/faults`. Counters count sales (`POST /1/sales`) down, the `void*` ones voids. */
export interface CieloFaults {
  /** Every API and query answer waits this long before being written. */
  latencyMs: number;
  /** Every API and query request has its socket destroyed unanswered; nothing is recorded. */
  down: boolean;
  /** The next N sales are recorded, then their sockets destroyed unanswered (Cielo charged, we never heard). */
  dropAfterRecord: number;
  /** The next N sales have their sockets destroyed unanswered; nothing is recorded. */
  dropBeforeRecord: number;
  /** The next N sales are recorded, then answered 500. */
  fail5xxAfterRecord: number;
  /** The next N sales are answered 503; nothing is recorded. */
  fail5xxBeforeRecord: number;
  /** Only the query API refuses (503). */
  queryDown: boolean;
  /** The next N sales are recorded and never answered; the socket stays open until `stop()`. */
  hang: number;
  /** The next N voids (full or partial) are applied, then their sockets destroyed unanswered (Cielo refunded, we never heard). */
  voidDropAfterRecord: number;
  /** The next N voids have their sockets destroyed unanswered; nothing is applied. */
  voidDropBeforeRecord: number;
  /** The next N voids are applied and never answered; the socket stays open until `stop()`. */
  voidHang: number;
}

/** A forced result: for one card number (every sale with it, or its next `next`), or for the next `next` sales. */
export interface ForcedOutcome {
  cardNumber?: string;
  next?: number;
  returnCode: string;
  /** Payment.Status to answer; 3 (Denied) when left out. 1 or 2 make an approved sale. */
  status?: number;
  message: string;
}

export interface SaleSummary {
  PaymentId: string;
  MerchantOrderId: string;
  Amount: number;
  Installments: number;
  Status: number;
  ReturnCode: string;
  Brand: string;
  VoidedAmount: number;
  ReceivedDate: string;
  requestId: string | null;
  /** `Authenticate` and the `ExternalAuthentication` node the sale carried (3-D Secure), if any. */
  Authentication?: SaleAuthentication;
}

export interface RequestCounts {
  sale: number;
  void: number;
  capture: number;
  query: number;
  get: number;
}

/** A zero auth the stand-in answered: the masked card only. */
export interface ZeroAuthSummary {
  maskedCardNumber: string;
  brand: string;
  holder: string;
  hadSecurityCode: boolean;
  cardOnFile: { usage?: string; reason?: string } | undefined;
  valid: boolean;
  returnCode: string;
}

/** A replacement card Renova Fácil answers for a recurring sale of a card (`forceNewCard`). */
export interface NewCardOutcome {
  /** The card the issuer replaced. */
  cardNumber: string;
  /** Its replacement, answered in `Payment.NewCard.CardNumber`. */
  newCardNumber: string;
  /** MM/YYYY. */
  expirationDate: string;
  returnCode?: string;
  message?: string;
}

export interface CieloStats {
  sales: number;
  approved: number;
  voided: number;
  salesByMerchantOrderId: Record<string, number>;
  /** The MerchantOrderIds with more than one sale: what the gateway must never cause. */
  duplicates: Record<string, number>;
  requests: RequestCounts;
}

export interface RequestLogEntry {
  api: 'api' | 'query';
  method: string;
  path: string;
  requestId: string | null;
}

type Api = 'api' | 'query';
type Route =
  | { name: 'sale' }
  | { name: 'void' | 'capture' | 'get'; paymentId: string }
  | { name: 'query' }
  | { name: 'zeroauth' }
  | { status: 404 | 405 };

const NO_FAULTS: Omit<CieloFaults, 'latencyMs'> = {
  down: false,
  dropAfterRecord: 0,
  dropBeforeRecord: 0,
  fail5xxAfterRecord: 0,
  fail5xxBeforeRecord: 0,
  queryDown: false,
  hang: 0,
  voidDropAfterRecord: 0,
  voidDropBeforeRecord: 0,
  voidHang: 0,
};
const COUNTED_FAULTS = ['dropAfterRecord', 'dropBeforeRecord', 'fail5xxAfterRecord', 'fail5xxBeforeRecord', 'hang', 'voidDropAfterRecord', 'voidDropBeforeRecord', 'voidHang'] as const;
const MAX_BODY_BYTES = 64 * 1024;
const MAX_LOGGED_REQUESTS = 10_000;
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class CieloStandIn {
  private readonly options: Required<Omit<CieloStandInOptions, 'random'>> & { random: () => number };
  private readonly apiServer: http.Server;
  private readonly queryServer: http.Server;
  private faults: CieloFaults;
  private readonly salesById = new Map<string, SaleRecord>();
  private readonly salesInOrder: SaleRecord[] = [];
  /** SHA-256 of a card number → its forced outcome; `remaining` null means every sale with that card. */
  private readonly forcedByCard = new Map<string, { outcome: Outcome; remaining: number | null }>();
  private readonly forcedNext: { outcome: Outcome; remaining: number }[] = [];
  private counts: RequestCounts = { sale: 0, void: 0, capture: 0, query: 0, get: 0 };
  /** The stored-credential fields each sale carried, by PaymentId (what the indicators tests read). */
  private readonly credentialsBySale = new Map<string, StoredCredentialFields>();
  /** IssuerTransactionId of approved sales and valid zero auths, by PaymentId. */
  private readonly issuerIds = new Map<string, string>();
  /** Renova Fácil: a replacement per card number's SHA-256, answered to recurring sales of that card. */
  private readonly newCards = new Map<string, NewCardOutcome>();
  private readonly newCardBySale = new Map<string, NewCardOutcome>();
  private zeroAuthLog: ZeroAuthSummary[] = [];
  private requestLog: RequestLogEntry[] = [];
  private sequence = 0;
  /** Where ProofOfSale numbering starts: random, so two runs do not hand out the same numbers. */
  private readonly proofBase = randomInt(100_000, 900_000);

  constructor(options: CieloStandInOptions = {}) {
    this.options = {
      port: options.port ?? 0,
      queryPort: options.queryPort ?? 0,
      latencyMs: options.latencyMs ?? 0,
      merchantId: options.merchantId ?? STANDIN_MERCHANT_ID,
      merchantKey: options.merchantKey ?? STANDIN_MERCHANT_KEY,
      random: options.random ?? Math.random,
    };
    this.faults = { latencyMs: this.options.latencyMs, ...NO_FAULTS };
    this.apiServer = http.createServer((req, res) => void this.serve('api', req, res));
    this.queryServer = http.createServer((req, res) => void this.serve('query', req, res));
  }

  async start(): Promise<this> {
    await Promise.all([listen(this.apiServer, this.options.port), listen(this.queryServer, this.options.queryPort)]);
    return this;
  }

  /** Closes both listeners and every open socket, hung ones included. */
  async stop(): Promise<void> {
    await Promise.all([close(this.apiServer), close(this.queryServer)]);
  }

  get apiUrl(): string {
    return baseUrl(this.apiServer);
  }

  get queryUrl(): string {
    return baseUrl(this.queryServer);
  }

  /** Merges into the current faults and returns them. */
  setFaults(faults: Partial<CieloFaults>): CieloFaults {
    this.faults = { ...this.faults, ...faults };
    return this.currentFaults();
  }

  currentFaults(): CieloFaults {
    return { ...this.faults };
  }

  forceOutcome(forced: ForcedOutcome): void {
    const outcome: Outcome = { status: forced.status ?? STATUS.denied, returnCode: forced.returnCode, returnMessage: forced.message };
    if (forced.cardNumber !== undefined) {
      this.forcedByCard.set(sha256(forced.cardNumber), { outcome, remaining: forced.next ?? null });
    } else {
      this.forcedNext.push({ outcome, remaining: forced.next ?? 1 });
    }
  }

  clearOutcomes(): void {
    this.forcedByCard.clear();
    this.forcedNext.length = 0;
    this.newCards.clear();
  }

  /** Renova Fácil: every recurring sale (Recurrent true) of `cardNumber` is denied with this replacement in `Payment.NewCard`. */
  forceNewCard(outcome: NewCardOutcome): void {
    this.newCards.set(sha256(outcome.cardNumber), outcome);
  }

  /** The stored-credential fields the sales of an order carried (InitiatedTransactionIndicator, Recurrent, IssuerTransactionId, CardOnFile). */
  credentialsOf(merchantOrderId: string): (StoredCredentialFields & { PaymentId: string })[] {
    return this.salesInOrder.filter((sale) => sale.merchantOrderId === merchantOrderId).map((sale) => ({ PaymentId: sale.paymentId, ...this.credentialsBySale.get(sale.paymentId)! }));
  }

  /** The IssuerTransactionId the stand-in answered for a sale. */
  issuerTransactionIdOf(paymentId: string): string | undefined {
    return this.issuerIds.get(paymentId);
  }

  zeroAuths(): ZeroAuthSummary[] {
    return [...this.zeroAuthLog];
  }

  sales(): SaleSummary[] {
    return this.salesInOrder.map((sale) => ({
      PaymentId: sale.paymentId,
      MerchantOrderId: sale.merchantOrderId,
      Amount: sale.amount,
      Installments: sale.installments,
      Status: sale.status,
      ReturnCode: sale.returnCode,
      Brand: sale.brand,
      VoidedAmount: sale.voidedAmount,
      ReceivedDate: sale.receivedDate,
      requestId: sale.requestId,
      ...(sale.authentication ? { Authentication: sale.authentication } : {}),
    }));
  }

  stats(): CieloStats {
    const byOrder: Record<string, number> = {};
    for (const sale of this.salesInOrder) byOrder[sale.merchantOrderId] = (byOrder[sale.merchantOrderId] ?? 0) + 1;
    return {
      sales: this.salesInOrder.length,
      approved: this.salesInOrder.filter((sale) => sale.approved).length,
      voided: this.salesInOrder.filter((sale) => sale.status === STATUS.voided).length,
      salesByMerchantOrderId: byOrder,
      duplicates: Object.fromEntries(Object.entries(byOrder).filter(([, n]) => n > 1)),
      requests: { ...this.counts },
    };
  }

  /** The last requests to the API and query listeners, oldest first, with the RequestId header each carried. */
  requests(): RequestLogEntry[] {
    return this.requestLog.slice(-MAX_LOGGED_REQUESTS);
  }

  /** Clears sales, faults (back to the baseline latency), outcomes and counters. */
  reset(): void {
    this.salesById.clear();
    this.salesInOrder.length = 0;
    this.faults = { latencyMs: this.options.latencyMs, ...NO_FAULTS };
    this.clearOutcomes();
    this.counts = { sale: 0, void: 0, capture: 0, query: 0, get: 0 };
    this.requestLog = [];
    this.credentialsBySale.clear();
    this.issuerIds.clear();
    this.newCardBySale.clear();
    this.zeroAuthLog = [];
  }

  private async serve(api: Api, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    try {
      const url = new URL(req.url ?? '/', 'http://standin');
      if (api === 'api' && url.pathname.startsWith('/__standin/')) return await this.control(req, res, url);

      const route = matchRoute(api, req.method ?? 'GET', url.pathname);
      // Counted and logged before any fault, so a soak can see the attempts a dead Cielo received.
      // Zero auths are counted in their own log (zeroAuths()).
      if ('name' in route && route.name !== 'zeroauth') this.counts[route.name] += 1;
      const requestId = header(req, 'requestid');
      this.requestLog.push({ api, method: req.method ?? '', path: url.pathname + url.search, requestId });
      // Trimmed in batches so a benchmark's millions of requests cost no per-request copy.
      if (this.requestLog.length > 2 * MAX_LOGGED_REQUESTS) this.requestLog = this.requestLog.slice(-MAX_LOGGED_REQUESTS);

      if (this.faults.down) return void req.socket.destroy();
      if (api === 'query' && this.faults.queryDown) return await this.answer(res, 503, { Message: 'Service Unavailable' });
      if ('status' in route) return await this.answer(res, route.status);
      // Cielo answers bad credentials 401 with {"Message": ...}, not its [{Code, Message}] array (see the report).
      if (!this.authorized(req)) return await this.answer(res, 401, { Message: 'Merchant not found' });

      switch (route.name) {
        case 'sale':
          return await this.createSale(req, res, requestId);
        case 'void':
          return await this.voidSale(req, res, route.paymentId, url);
        case 'capture':
          return await this.captureSale(res, route.paymentId, url);
        case 'get': {
          const sale = this.salesById.get(route.paymentId.toLowerCase());
          return await (sale ? this.answer(res, 200, this.saleAnswer(sale)) : this.answer(res, 404));
        }
        case 'zeroauth':
          return await this.zeroAuth(req, res);
        case 'query':
          return await this.queryByOrder(res, url);
      }
    } catch {
      if (!res.headersSent && !res.destroyed) res.writeHead(500).end();
    }
  }

  private authorized(req: http.IncomingMessage): boolean {
    const merchantId = header(req, 'merchantid');
    const merchantKey = header(req, 'merchantkey');
    return merchantId?.toLowerCase() === this.options.merchantId.toLowerCase() && merchantKey === this.options.merchantKey;
  }

  private async createSale(req: http.IncomingMessage, res: http.ServerResponse, requestId: string | null): Promise<void> {
    const raw = await readBody(req);
    if (raw === null) return this.answer(res, 413);
    if (this.take('dropBeforeRecord')) return this.drop(req);
    if (this.take('fail5xxBeforeRecord')) return this.answer(res, 503, { Message: 'Service Unavailable' });

    let body: unknown = undefined;
    try {
      body = raw.trim() === '' ? undefined : JSON.parse(raw);
    } catch {
      body = undefined;
    }
    const now = new Date();
    const validation = validateSale(body, now);
    if (!validation.ok) return this.answer(res, 400, validation.errors);

    const input = validation.sale;
    const credentials = storedCredentialFieldsOf(body);
    const credentialProblem = storedCredentialProblem(credentials);
    if (credentialProblem) return this.answer(res, 400, [credentialProblem]);
    const replacement = credentials.recurrent ? this.newCards.get(sha256(input.cardNumber)) : undefined;
    const outcome = replacement
      ? { status: STATUS.denied, returnCode: replacement.returnCode ?? '57', returnMessage: replacement.message ?? 'Card Expired' }
      : (this.forcedFor(input.cardNumber) ?? sandboxOutcome(input.cardNumber, input.capture, this.options.random));
    const approved = isApproved(outcome.status);
    const sequence = this.sequence++;
    const sale: SaleRecord = {
      paymentId: randomUUID(),
      merchantOrderId: input.merchantOrderId,
      customerName: input.customerName,
      hasCustomer: input.hasCustomer,
      amount: input.amount,
      installments: input.installments,
      capture: input.capture,
      softDescriptor: input.softDescriptor,
      maskedCardNumber: maskCardNumber(input.cardNumber),
      holder: input.holder,
      expirationDate: input.expirationDate,
      brand: input.brand,
      authentication: input.authentication,
      tid: makeTid(now, sequence),
      proofOfSale: String((this.proofBase + sequence) % 1_000_000).padStart(6, '0'),
      authorizationCode: approved ? String(randomInt(0, 1_000_000)).padStart(6, '0') : undefined,
      approved,
      status: outcome.status,
      returnCode: outcome.returnCode,
      returnMessage: outcome.returnMessage,
      receivedDate: cieloDate(now),
      capturedAmount: outcome.status === STATUS.paymentConfirmed ? input.amount : undefined,
      capturedDate: outcome.status === STATUS.paymentConfirmed ? cieloDate(now) : undefined,
      voidedAmount: 0,
      voidedDate: undefined,
      requestId,
    };
    this.salesById.set(sale.paymentId, sale);
    this.salesInOrder.push(sale);
    this.credentialsBySale.set(sale.paymentId, credentials);
    if (approved) this.issuerIds.set(sale.paymentId, String(randomInt(100_000_000, 999_999_999)) + String(sequence % 1_000_000).padStart(6, '0'));
    if (replacement) this.newCardBySale.set(sale.paymentId, replacement);

    if (this.take('dropAfterRecord')) return this.drop(req);
    if (this.take('fail5xxAfterRecord')) return this.answer(res, 500, { Message: 'An error has occurred.' });
    if (this.take('hang')) return; // recorded, never answered: stop() closes the socket
    return this.answer(res, 201, this.saleAnswer(sale));
  }

  /** saleBody plus what Cielo adds for stored credentials: IssuerTransactionId on an approval, NewCard (Renova Fácil). */
  private saleAnswer(sale: SaleRecord): Record<string, unknown> {
    const body = saleBody(sale, this) as { Payment: Record<string, unknown> };
    const issuerId = this.issuerIds.get(sale.paymentId);
    if (issuerId) body.Payment.IssuerTransactionId = issuerId;
    const credentials = this.credentialsBySale.get(sale.paymentId);
    if (credentials?.recurrent) body.Payment.Recurrent = true;
    const replacement = this.newCardBySale.get(sale.paymentId);
    if (replacement) body.Payment.NewCard = { CardNumber: replacement.newCardNumber, Holder: sale.holder, ExpirationDate: replacement.expirationDate, SaveCard: false, Brand: sale.brand };
    return body;
  }

  /** POST /1/zeroauth: the sandbox's last-digit table decides (valid on 0, 1, 4); nothing is charged or kept but the masked card. */
  private async zeroAuth(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const raw = await readBody(req);
    if (raw === null) return this.answer(res, 413);
    let body: unknown;
    try {
      body = raw.trim() === '' ? undefined : JSON.parse(raw);
    } catch {
      body = undefined;
    }
    const validation = validateZeroAuth(body, new Date());
    if (!validation.ok) return this.answer(res, 400, validation.errors);
    const { input } = validation;
    const forced = this.forcedFor(input.cardNumber);
    const valid = forced ? isApproved(forced.status) : isApproved(sandboxOutcome(input.cardNumber, true, this.options.random).status);
    const returnCode = valid ? '00' : '57';
    this.zeroAuthLog.push({ maskedCardNumber: maskCardNumber(input.cardNumber), brand: input.brand, holder: input.holder, hadSecurityCode: input.securityCode !== undefined, cardOnFile: input.cardOnFile, valid, returnCode });
    return this.answer(res, 201, {
      Valid: valid,
      ReturnCode: returnCode,
      ReturnMessage: valid ? 'Transacao autorizada' : 'Autorizacao negada',
      ...(valid ? { IssuerTransactionId: String(randomInt(100_000_000, 999_999_999)) + String(this.sequence++ % 1_000_000).padStart(6, '0') } : {}),
    });
  }

  /** Full void when `amount` is absent or 0 (Cielo's rule); partial ones only on a captured sale, until nothing is left. */
  private async voidSale(req: http.IncomingMessage, res: http.ServerResponse, paymentId: string, url: URL): Promise<void> {
    if (this.take('voidDropBeforeRecord')) return this.drop(req);
    const sale = this.salesById.get(paymentId.toLowerCase());
    if (!sale) return this.answer(res, 404);
    const amount = amountParam(url);
    if (amount === 'invalid') return this.answer(res, 400, [CIELO_ERRORS.amountInvalid]);
    if (!isApproved(sale.status)) return this.answer(res, 400, [CIELO_ERRORS.notAvailableToVoid]);

    // What can be voided: the captured amount once captured, the authorized one before.
    const voidable = sale.status === STATUS.paymentConfirmed ? (sale.capturedAmount ?? sale.amount) : sale.amount;
    const remaining = voidable - sale.voidedAmount;
    const voiding = amount === undefined || amount === 0 ? remaining : amount;
    if (voiding > remaining) return this.answer(res, 400, [CIELO_ERRORS.notAvailableToVoid]);
    // Cielo's reference: "It is not possible to partially void a transaction that was not captured."
    if (sale.status === STATUS.authorized && voiding < remaining) return this.answer(res, 400, [CIELO_ERRORS.notAvailableToVoid]);

    const now = cieloDate(new Date());
    sale.voidedAmount += voiding;
    sale.voidedDate = now;
    const full = sale.voidedAmount === voidable;
    if (full) sale.status = STATUS.voided;
    if (this.take('voidDropAfterRecord')) return this.drop(req);
    if (this.take('voidHang')) return; // applied, never answered: stop() closes the socket
    // A void that leaves money on the sale keeps it PaymentConfirmed (2) and answers ReturnCode 0; the last one 10 and 9.
    return this.answer(res, 200, operationBody(sale, full ? '9' : '0', this));
  }

  /** Capture of an authorized sale, full or partial (what is not captured is released). */
  private async captureSale(res: http.ServerResponse, paymentId: string, url: URL): Promise<void> {
    const sale = this.salesById.get(paymentId.toLowerCase());
    if (!sale) return this.answer(res, 404);
    const amount = amountParam(url);
    if (amount === 'invalid') return this.answer(res, 400, [CIELO_ERRORS.amountInvalid]);
    const capturing = amount === undefined || amount === 0 ? sale.amount : amount;
    if (sale.status !== STATUS.authorized || capturing > sale.amount) {
      return this.answer(res, 400, [CIELO_ERRORS.notAvailableToCapture]);
    }
    const captured = approvedOutcome(true);
    sale.status = captured.status;
    sale.returnCode = captured.returnCode;
    sale.returnMessage = captured.returnMessage;
    sale.capturedAmount = capturing;
    sale.capturedDate = cieloDate(new Date());
    return this.answer(res, 200, operationBody(sale, captured.returnCode, this));
  }

  /**
   * Every sale with that MerchantOrderId, oldest first. None: 404 with an empty body, as Cielo
   * answers; a client must also accept 200 with an empty `Payments` list, which Cielo's
   * reference does not rule out.
   */
  private async queryByOrder(res: http.ServerResponse, url: URL): Promise<void> {
    const orderId = queryParam(url, 'merchantOrderId');
    if (orderId === undefined || orderId === '') return this.answer(res, 400, [CIELO_ERRORS.merchantOrderIdRequired]);
    const payments = this.salesInOrder
      .filter((sale) => sale.merchantOrderId === orderId)
      .map((sale) => ({ PaymentId: sale.paymentId, ReceivedDate: sale.receivedDate }));
    if (payments.length === 0) return this.answer(res, 404);
    return this.answer(res, 200, { Payments: payments, ReasonCode: 0, ReasonMessage: 'Successful' });
  }

  /** The card's own forced outcome first, then the queue for the next sales. Consumes one use. */
  private forcedFor(cardNumber: string): Outcome | undefined {
    const key = this.forcedByCard.size > 0 ? sha256(cardNumber) : '';
    const byCard = this.forcedByCard.get(key);
    if (byCard) {
      if (byCard.remaining !== null && --byCard.remaining <= 0) this.forcedByCard.delete(key);
      return byCard.outcome;
    }
    const next = this.forcedNext[0];
    if (!next) return undefined;
    if (--next.remaining <= 0) this.forcedNext.shift();
    return next.outcome;
  }

  /** Uses up one of a counted fault, if any is left. */
  private take(fault: (typeof COUNTED_FAULTS)[number]): boolean {
    if (this.faults[fault] <= 0) return false;
    this.faults[fault] -= 1;
    return true;
  }

  /** The answer is lost: after the usual latency, the connection goes away without a byte. */
  private async drop(req: http.IncomingMessage): Promise<void> {
    await sleep(this.faults.latencyMs);
    req.socket.destroy();
  }

  private async answer(res: http.ServerResponse, status: number, body?: unknown): Promise<void> {
    if (this.faults.latencyMs > 0) await sleep(this.faults.latencyMs);
    if (res.destroyed || res.writableEnded) return;
    writeJson(res, status, body);
  }

  private async control(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
    const method = req.method ?? 'GET';
    const routes: Record<string, Record<string, () => Promise<void> | void>> = {
      '/__standin/faults': {
        GET: () => writeJson(res, 200, { faults: this.currentFaults() }),
        POST: async () => {
          const parsed = parseFaults(await readJson(req));
          if (typeof parsed === 'string') return writeJson(res, 400, { error: parsed });
          writeJson(res, 200, { faults: this.setFaults(parsed) });
        },
      },
      '/__standin/outcomes': {
        POST: async () => {
          const parsed = parseForcedOutcome(await readJson(req));
          if (typeof parsed === 'string') return writeJson(res, 400, { error: parsed });
          this.forceOutcome(parsed);
          writeJson(res, 204);
        },
        DELETE: () => {
          this.clearOutcomes();
          writeJson(res, 204);
        },
      },
      '/__standin/sales': { GET: () => writeJson(res, 200, { sales: this.sales() }) },
      '/__standin/stats': { GET: () => writeJson(res, 200, this.stats()) },
      '/__standin/requests': { GET: () => writeJson(res, 200, { requests: this.requests() }) },
      '/__standin/reset': {
        POST: () => {
          this.reset();
          writeJson(res, 204);
        },
      },
    };
    const route = routes[url.pathname];
    if (!route) return writeJson(res, 404, { error: 'no such control' });
    const handler = route[method];
    if (!handler) return writeJson(res, 405, { error: `${method} not allowed` });
    await handler();
  }
}

/** The API port takes sales, voids and captures; the query port answers lookups. A known path with the wrong verb is 405. */
function matchRoute(api: Api, method: string, path: string): Route {
  const parts = path.split('/').filter((part) => part !== '');
  if (api === 'api' && parts.length === 2 && parts[0] === '1' && parts[1] === 'zeroauth') return method === 'POST' ? { name: 'zeroauth' } : { status: 405 };
  if (parts[0] !== '1' || parts[1] !== 'sales') return { status: 404 };
  const paymentId = parts[2];
  const action = parts[3];
  const want = (verb: string, route: Route): Route => (method === verb ? route : { status: 405 });
  if (api === 'api') {
    if (parts.length === 2) return want('POST', { name: 'sale' });
    if (parts.length === 4 && paymentId && GUID.test(paymentId) && (action === 'void' || action === 'capture')) {
      return want('PUT', { name: action, paymentId });
    }
    return { status: 404 };
  }
  if (parts.length === 2) return want('GET', { name: 'query' });
  if (parts.length === 3 && paymentId && GUID.test(paymentId)) return want('GET', { name: 'get', paymentId });
  return { status: 404 };
}

function header(req: http.IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  return typeof value === 'string' ? value : null;
}

/** Query parameters bind ignoring case on Cielo (ASP.NET), so `merchantorderid` works too. */
function queryParam(url: URL, name: string): string | undefined {
  for (const [key, value] of url.searchParams) if (key.toLowerCase() === name.toLowerCase()) return value;
  return undefined;
}

/** `?amount=N` in cents: absent → undefined, digits → N, anything else → 'invalid'. */
function amountParam(url: URL): number | undefined | 'invalid' {
  const value = queryParam(url, 'amount');
  if (value === undefined) return undefined;
  return /^\d{1,15}$/.test(value) ? Number(value) : 'invalid';
}

/** The body as text, or null when it is larger than any sale (nothing here parses megabytes). */
function readBody(req: http.IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? null : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const raw = await readBody(req);
  try {
    return raw === null || raw.trim() === '' ? {} : JSON.parse(raw);
  } catch {
    return undefined;
  }
}

function writeJson(res: http.ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) {
    res.writeHead(status, { 'content-length': '0' }).end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)) }).end(text);
}

const isCount = (value: unknown) => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/** Faults from a control request; unknown keys are refused so a typo in a test does not pass silently. */
function parseFaults(body: unknown): Partial<CieloFaults> | string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'a JSON object is expected';
  const faults: Partial<CieloFaults> = {};
  for (const [key, value] of Object.entries(body)) {
    if (key === 'down' || key === 'queryDown') {
      if (typeof value !== 'boolean') return `${key} must be a boolean`;
      faults[key] = value;
    } else if (key === 'latencyMs' || (COUNTED_FAULTS as readonly string[]).includes(key)) {
      if (!isCount(value)) return `${key} must be a non-negative integer`;
      faults[key as 'latencyMs'] = value as number;
    } else {
      return `unknown fault ${key}`;
    }
  }
  return faults;
}

function parseForcedOutcome(body: unknown): ForcedOutcome | string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'a JSON object is expected';
  const { cardNumber, next, returnCode, status, message } = body as Record<string, unknown>;
  if (typeof returnCode !== 'string' || returnCode === '') return 'returnCode must be a non-empty string';
  if (typeof message !== 'string') return 'message must be a string';
  if (status !== undefined && !(typeof status === 'number' && Number.isSafeInteger(status))) return 'status must be an integer';
  if (cardNumber !== undefined && (typeof cardNumber !== 'string' || !/^\d{12,19}$/.test(cardNumber))) return 'cardNumber must be 12 to 19 digits';
  if (next !== undefined && !(isCount(next) && (next as number) > 0)) return 'next must be a positive integer';
  return { cardNumber, next: next as number | undefined, returnCode, status: status as number | undefined, message };
}

function listen(server: http.Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function close(server: http.Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

function baseUrl(server: http.Server): string {
  const address = server.address() as AddressInfo | null;
  if (!address) throw new Error('the Cielo stand-in is not listening: call start() first');
  return `http://127.0.0.1:${address.port}`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '0' },
      'query-port': { type: 'string', default: '0' },
      latency: { type: 'string', default: '0' },
      'merchant-id': { type: 'string' },
      'merchant-key': { type: 'string' },
    },
  });
  const standIn = await new CieloStandIn({
    port: Number(values.port),
    queryPort: Number(values['query-port']),
    latencyMs: Number(values.latency),
    merchantId: values['merchant-id'],
    merchantKey: values['merchant-key'],
  }).start();
  process.stdout.write(`cielo stand-in listening api=${standIn.apiUrl} query=${standIn.queryUrl}\n`);
  const shutdown = () => void standIn.stop().finally(() => process.exit(0));
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    process.stderr.write(`cielo stand-in failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
