import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';

/**
 * A stand-in 3DS server with its directory server and ACS, as one separate HTTP server, written
 * from EMVCo's EMV 3-D Secure Protocol and Core Functions Specification v2.2.0 (the AReq/ARes,
 * CReq/CRes and RReq messages, field names as its table A.1 spells them; error messages as
 * `Erro` with its errorCode). What it stands for:
 * - `POST /3ds/authenticate`: the 3DS Requestor hands its 3DS server an AReq; the ARes comes
 *   back (transStatus Y, A, C, N, U or R). The issuer's answer is decided by test cards (below).
 * - `POST /acs/challenge`: the buyer's browser posts the CReq (form field `creq`, base64url) to
 *   the ACS, which asks a one-time code (`123456` passes); `POST /acs/challenge/answer` ends
 *   the challenge: the ACS sends the RReq to the 3DS server (kept here) and hands the browser a
 *   page that posts the CRes (`cres`, base64url) to the AReq's notificationURL.
 * - `GET /3ds/results/{threeDSServerTransID}`: the RReq the 3DS server received (404 before).
 */
export const STANDIN_OTP = '123456';

const CARDS: Record<string, 'Y' | 'A' | 'C' | 'N' | 'U'> = {
  '4000000000001000': 'Y',
  '5200000000001005': 'Y',
  '4000000000001018': 'A',
  '5200000000001013': 'A',
  '4000000000001091': 'C',
  '5200000000001096': 'C',
  '4000000000001109': 'N',
  '5200000000001104': 'N',
  '4000000000001125': 'U',
  '5200000000001120': 'U',
};

/** Elements an AReq of the browser channel must carry (the specification's "Required" for deviceChannel 02, messageCategory 01). */
const REQUIRED = [
  'messageType', 'messageVersion', 'deviceChannel', 'messageCategory', 'threeDSRequestorChallengeInd', 'acctNumber', 'cardExpiryDate', 'purchaseAmount',
  'purchaseCurrency', 'purchaseExponent', 'purchaseDate', 'notificationURL', 'browserAcceptHeader', 'browserColorDepth', 'browserJavaEnabled', 'browserLanguage',
  'browserScreenHeight', 'browserScreenWidth', 'browserTZ', 'browserUserAgent', 'browserIP',
] as const;

type Json = Record<string, unknown>;

interface Transaction {
  threeDSServerTransID: string;
  acsTransID: string;
  dsTransID: string;
  mastercard: boolean;
  notificationURL: string;
  rreq?: Json;
}

const eciOf = (mastercard: boolean, status: 'Y' | 'A' | 'N') => (mastercard ? { Y: '02', A: '01', N: '00' } : { Y: '05', A: '06', N: '07' })[status];
const cavv = () => randomBytes(20).toString('base64');
const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export class ThreeDsServerStandIn {
  private readonly server = http.createServer((req, res) => void this.serve(req, res));
  private readonly transactions = new Map<string, Transaction>();
  /** AReqs received, the card number masked. */
  readonly areqs: Json[] = [];
  /** When set, every AReq is answered 503 (the 3DS server down). */
  down = false;

  async start(port = 0): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const path = (req.url ?? '/').split('?')[0]!;
    if (req.method === 'POST' && path === '/3ds/authenticate') return this.authenticate(raw, res);
    if (req.method === 'GET' && path.startsWith('/3ds/results/')) {
      const found = this.transactions.get(decodeURIComponent(path.slice('/3ds/results/'.length)));
      return found?.rreq ? json(res, 200, found.rreq) : json(res, 404, erro('303', 'Transaction not found', 'threeDSServerTransID'));
    }
    if (req.method === 'POST' && path === '/acs/challenge') return this.challengePage(new URLSearchParams(raw), res);
    if (req.method === 'POST' && path === '/acs/challenge/answer') return this.challengeAnswer(new URLSearchParams(raw), res);
    return json(res, 404, erro('303', 'Not found', path));
  }

  private authenticate(raw: string, res: http.ServerResponse): void {
    if (this.down) return json(res, 503, erro('405', 'System connection failure', 'down'));
    let areq: Json;
    try {
      areq = JSON.parse(raw) as Json;
    } catch {
      return json(res, 400, erro('101', 'Message received invalid', 'JSON'));
    }
    const missing = REQUIRED.find((name) => areq[name] === undefined || areq[name] === '');
    if (missing) return json(res, 400, erro('201', 'Required element missing', missing));
    if (areq.messageType !== 'AReq' || !/^2\.[12]\.0$/.test(String(areq.messageVersion))) return json(res, 400, erro('101', 'Message received invalid', 'messageType'));
    if (!['01', '02', '03', '04'].includes(String(areq.threeDSRequestorChallengeInd))) return json(res, 400, erro('203', 'Format of one or more elements is invalid', 'threeDSRequestorChallengeInd'));
    const pan = String(areq.acctNumber);
    this.areqs.push({ ...areq, acctNumber: `${pan.slice(0, 6)}******${pan.slice(-4)}` });
    const mastercard = pan.startsWith('5') || pan.startsWith('2');
    const tx: Transaction = { threeDSServerTransID: randomUUID(), acsTransID: randomUUID(), dsTransID: randomUUID(), mastercard, notificationURL: String(areq.notificationURL) };
    this.transactions.set(tx.threeDSServerTransID, tx);
    const wants = ['03', '04'].includes(String(areq.threeDSRequestorChallengeInd));
    const card = CARDS[pan] ?? (wants ? 'C' : 'Y');
    const base = { messageType: 'ARes', messageVersion: String(areq.messageVersion), threeDSServerTransID: tx.threeDSServerTransID, acsTransID: tx.acsTransID, dsTransID: tx.dsTransID };
    if (card === 'Y' || card === 'A') return json(res, 200, { ...base, transStatus: card, eci: eciOf(mastercard, card), authenticationValue: cavv() });
    if (card === 'C') return json(res, 200, { ...base, transStatus: 'C', acsChallengeMandated: 'Y', acsURL: `${this.url}/acs/challenge` });
    if (card === 'N') return json(res, 200, { ...base, transStatus: 'N', transStatusReason: '01', eci: eciOf(mastercard, 'N') });
    return json(res, 200, { ...base, transStatus: 'U', transStatusReason: '11' });
  }

  private creqOf(params: URLSearchParams): { creq: Json; tx: Transaction } | undefined {
    try {
      const creq = JSON.parse(Buffer.from(params.get('creq') ?? '', 'base64url').toString('utf8')) as Json;
      const tx = this.transactions.get(String(creq.threeDSServerTransID));
      if (creq.messageType !== 'CReq' || !tx || tx.acsTransID !== creq.acsTransID || tx.rreq) return undefined;
      return { creq, tx };
    } catch {
      return undefined;
    }
  }

  private challengePage(params: URLSearchParams, res: http.ServerResponse): void {
    if (!this.creqOf(params)) return html(res, 400, '<p>Invalid CReq.</p>');
    html(
      res,
      200,
      `<h1>Stand-in issuer</h1><p>Enter the one-time code.</p><form method="post" action="/acs/challenge/answer">` +
        `<input type="hidden" name="creq" value="${escape(params.get('creq') ?? '')}"><input type="hidden" name="threeDSSessionData" value="${escape(params.get('threeDSSessionData') ?? '')}">` +
        `<input name="otp" id="otp"><button type="submit" id="verify">Verify</button></form>`,
    );
  }

  private challengeAnswer(params: URLSearchParams, res: http.ServerResponse): void {
    const found = this.creqOf(params);
    if (!found) return html(res, 400, '<p>Invalid CReq.</p>');
    const { creq, tx } = found;
    const passed = params.get('otp') === STANDIN_OTP;
    // The ACS's RReq to the 3DS server: the result the requestor reads, never the browser's copy.
    tx.rreq = {
      messageType: 'RReq',
      messageVersion: creq.messageVersion,
      messageCategory: '01',
      threeDSServerTransID: tx.threeDSServerTransID,
      acsTransID: tx.acsTransID,
      dsTransID: tx.dsTransID,
      interactionCounter: '01',
      transStatus: passed ? 'Y' : 'N',
      eci: eciOf(tx.mastercard, passed ? 'Y' : 'N'),
      ...(passed ? { authenticationValue: cavv() } : { transStatusReason: '01' }),
    };
    const cres = Buffer.from(JSON.stringify({ messageType: 'CRes', messageVersion: creq.messageVersion, threeDSServerTransID: tx.threeDSServerTransID, acsTransID: tx.acsTransID, transStatus: passed ? 'Y' : 'N', challengeCompletionInd: 'Y' })).toString('base64url');
    const session = params.get('threeDSSessionData');
    html(
      res,
      200,
      `<form id="post" method="post" action="${escape(tx.notificationURL)}"><input type="hidden" name="cres" value="${cres}">` +
        `${session ? `<input type="hidden" name="threeDSSessionData" value="${escape(session)}">` : ''}<button type="submit">Continue</button></form>` +
        `<script>document.getElementById('post').submit()</script>`,
    );
  }
}

function erro(errorCode: string, errorDescription: string, errorDetail: string): Json {
  return { messageType: 'Erro', messageVersion: '2.2.0', errorComponent: 'S', errorCode, errorDescription, errorDetail };
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function html(res: http.ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><body>${body}</body></html>`);
}

/** `npx tsx test/standins/threeds-server.ts [port]`: the stand-in on its own, for THREEDS_SERVER=emvco THREEDS_SERVER_URL=<its url>. */
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  void new ThreeDsServerStandIn().start(Number(process.argv[2] ?? 0)).then((standIn) => {
    process.stdout.write(`3ds server stand-in listening ${standIn.url}\n`);
    const shutdown = () => void standIn.stop().finally(() => process.exit(0));
    process.once('SIGTERM', shutdown);
    process.once('SIGINT', shutdown);
  });
}
