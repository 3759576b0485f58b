import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
import { formatLine } from '../../src/domain/boleto.js';
import { decodeItf } from '../../src/domain/interleaved-2of5.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { testDialect } from '../support/database.js';
import { BASE, inDays, issue, issued, pay, slipBody } from './support.js';

const require = createRequire(import.meta.url);
const standardFontDataUrl = require.resolve('pdfjs-dist/package.json').replace(/package\.json$/, 'standard_fonts/');
/** pdfjs renders with @napi-rs/canvas when it is installed (an optional dependency of pdfjs-dist). */
const canvasModule = await import('@napi-rs/canvas' as string).catch(() => null);

async function openPdf(bytes: Buffer) {
  return pdfjs.getDocument({ data: new Uint8Array(bytes), standardFontDataUrl, verbosity: 0 }).promise;
}

async function pageText(bytes: Buffer): Promise<string> {
  const doc = await openPdf(bytes);
  const content = await (await doc.getPage(1)).getTextContent();
  return content.items.map((item) => ('str' in item ? item.str : '')).join('\n');
}

/**
 * Renders the page and reads the barcode as a scanner would: pixel rows top to bottom,
 * thresholded into a module string, until one decodes as interleaved 2 of 5.
 */
async function scanBarcode(bytes: Buffer): Promise<string | null> {
  const { createCanvas } = canvasModule as typeof import('@napi-rs/canvas');
  const page = await (await openPdf(bytes)).getPage(1);
  const viewport = page.getViewport({ scale: 4 });
  const canvas = createCanvas(Math.ceil(viewport.width), Math.ceil(viewport.height));
  await page.render({ canvas: canvas as never, canvasContext: canvas.getContext('2d') as never, viewport }).promise;
  const { data, width, height } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
  for (let y = 0; y < height; y += 2) {
    let row = '';
    for (let x = 0; x < width; x++) row += data[(y * width + x) * 4] < 128 ? '1' : '0';
    const digits = (row.match(/1+/g)?.length ?? 0) > 100 ? decodeItf(row) : null;
    if (digits !== null) return digits;
  }
  return null;
}

/** ZBar's zbarimg and poppler's pdftoppm (Debian zbar-tools, poppler-utils; .ci/run installs them): an independent reader. */
function installed(tool: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const zbar = installed('zbarimg') && installed('pdftoppm');

/** The page rasterized at 150 dpi, every symbol ZBar finds: ["I2/5:0019...", "QR-Code:000201..."]. */
function zbarSymbols(pdf: Buffer): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'slip-pdf-'));
  writeFileSync(join(dir, 'slip.pdf'), pdf);
  execFileSync('pdftoppm', ['-r', '150', '-png', '-singlefile', join(dir, 'slip.pdf'), join(dir, 'page')]);
  // zbarimg exits 4 when it finds nothing: the test then fails on the comparison, with the output.
  try {
    return execFileSync('zbarimg', ['-q', join(dir, 'page.png')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().split('\n');
  } catch (error) {
    return [String((error as { stdout?: string }).stdout ?? error)];
  }
}

describe(`printable bank slip (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  let slip: any;
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant({ api: 'integration' });
    slip = await issued(t, m, slipBody({ value: 1234.56, pix: true }, { name: 'João Conceição' }));
  });
  afterAll(() => t.close());

  const getPdf = (id: string, accountNumber: unknown = m.accountNumber, headers = m.headers) =>
    t.inject({ method: 'GET', url: `${BASE}/${id}/pdf?accountNumber=${accountNumber}`, headers });

  it('is a PDF that parses, and its text holds the digitable line, the parties and the amount', async () => {
    const res = await getPdf(slip.id);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toBe(`inline; filename="boleto-${slip.id}.pdf"`);
    expect(res.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    const text = await pageText(res.rawPayload);
    expect(text).toContain(formatLine(slip.digitableLine));
    expect(text).toContain('João Conceição - CPF 529.982.247-25');
    expect(text).toContain('Sacador/Avalista');
    expect(text).toContain('Loja Teste - CNPJ 11.222.333/0001-81');
    expect(text).not.toContain('CPF/CNPJ');
    expect(text).toContain('R$ 1.234,56');
    expect(text).toContain(slip.ourNumber);
    expect(text).toContain('001-9');
    expect(text).toContain('Pague com Pix');
    // The dynamic code (a cobv location) is long enough to wrap at its one space (the city).
    expect(text.replace(/\s+/g, ' ')).toContain(slip.pixEmv);
  });

  it.skipIf(!canvasModule)('draws the interleaved 2 of 5 barcode of the 44 digits (rendered and scanned back)', async () => {
    const res = await getPdf(slip.id);
    expect(await scanBarcode(res.rawPayload)).toBe(slip.barCode);
  });

  it("has every box a payer and a bank expect, with the bank's beneficiary and the merchant as sacador/avalista", async () => {
    const text = await pageText((await getPdf(slip.id)).rawPayload);
    const boxes = [
      'Local de pagamento', 'Vencimento', 'Beneficiário', 'Endereço do beneficiário', 'Agência/Código do beneficiário', 'Data do documento', 'Nº do documento',
      'Espécie doc.', 'Aceite', 'Data processamento', 'Nosso número', 'Uso do banco', 'Carteira', 'Espécie', 'Quantidade', '(x) Valor',
      '(=) Valor do documento', '(-) Desconto / Abatimento', '(-) Outras deduções', '(+) Mora / Multa', '(+) Outros acréscimos', '(=) Valor cobrado',
      'Pagador', 'Sacador/Avalista', 'Recibo do Pagador', 'Ficha de Compensação', 'Autenticação mecânica',
    ];
    for (const box of boxes) expect(text, box).toContain(box);
    const config = t.ctx.config.bankSlip;
    expect(text).toContain(config.bankName);
    expect(text).toContain('Gateway Sandbox Pagamentos Ltda - CNPJ 11.222.333/0001-81');
    expect(text).toContain(config.beneficiaryAddress);
    expect(text).toContain('0001-9 / 123456-7'); // agency / beneficiary code, not the merchant's accountNumber
    expect(text).not.toContain(`\n${m.accountNumber}\n`);
    expect(text).toContain('Pagável em qualquer banco até o vencimento');
  });

  it('prints each discount for early payment in the instructions', async () => {
    const until = await inDays(t, 2);
    const slip = await issued(t, m, slipBody({ value: 1000, dueDate: await inDays(t, 5), discount: [{ type: 'fixed', value: 10, until }, { type: 'percent', value: 1.5, until: await inDays(t, 4) }] }));
    const text = await pageText((await getPdf(slip.id)).rawPayload);
    expect(text).toContain(`Desconto de R$ 10,00 para pagamento até ${until.split('-').reverse().join('/')}.`);
    expect(text).toContain('Desconto de 1,50% (R$ 15,00) para pagamento até');
  });

  it('says until when a late payment is accepted, and shows the amounts charged once paid', async () => {
    const due = await inDays(t, 5);
    const late = await issued(t, m, { ...slipBody({ value: 1000, dueDate: due }), overdue: { allow: true, dateLimit: await inDays(t, 35), penaltyPercent: 2, interestPercentPerMonth: 1 } });
    const limit = (await inDays(t, 35)).split('-').reverse().join('/');
    let text = await pageText((await getPdf(late.id)).rawPayload);
    expect(text).toContain(`Pagável em qualquer banco até ${limit}`);
    expect(text).not.toContain('até o vencimento');
    expect(text).toContain('Após o vencimento, multa de 2% sobre o valor.');
    const advance = await t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { days: 15 } });
    expect(advance.statusCode).toBe(200);
    const paid = await pay(t, late.id);
    expect(paid.statusCode, paid.body).toBe(200);
    const { effectivePaymentValue, overduePenaltyReceived, overdueInterestReceived } = paid.json();
    text = await pageText((await getPdf(late.id)).rawPayload);
    const brl = (n: number) => `R$ ${n.toFixed(2).replace('.', ',').replace(/\B(?=(\d{3})+(?!\d))/g, '.')}`;
    expect(text).toContain(brl(effectivePaymentValue));
    expect(text).toContain(brl(overduePenaltyReceived + overdueInterestReceived));
  });

  it.skipIf(!zbar)('ZBar reads the barcode (the 44 digits) and the Pix QR code (the BR Code) off the rendered page', async () => {
    const symbols = zbarSymbols((await getPdf(slip.id)).rawPayload);
    expect(symbols).toContain(`I2/5:${slip.barCode}`);
    expect(symbols).toContain(`QR-Code:${slip.pixEmv}`);
  });

  it('has no Pix block when the slip has no Pix code', async () => {
    const plain = await issued(t, m, slipBody());
    const text = await pageText((await getPdf(plain.id)).rawPayload);
    expect(text).toContain(formatLine(plain.digitableLine));
    expect(text).not.toContain('Pague com Pix');
  });

  it('409 before registration, 404 for another merchant\'s slip, 400 for a malformed id, 403/400 on accountNumber, 401 anonymous', async () => {
    const pending = await issue(t, m, slipBody());
    expect((await getPdf(pending.json().id)).statusCode).toBe(409);
    const other = await t.merchant({ api: 'integration' });
    const foreignSlip = await issued(t, other, slipBody());
    expect((await getPdf(foreignSlip.id)).statusCode).toBe(404);
    const bad = await getPdf('nope');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()[0].tag).toBe('path.id');
    expect((await getPdf(slip.id, other.accountNumber)).statusCode).toBe(403);
    expect((await getPdf(slip.id, 'x')).statusCode).toBe(400);
    expect((await getPdf(slip.id, m.accountNumber, {})).statusCode).toBe(401);
  });

  it('is in the OpenAPI document with the other bank slip endpoints', async () => {
    const doc = (await t.inject({ method: 'GET', url: '/openapi.json' })).json();
    for (const path of ['issue', 'list/by/due-date', 'list/by/payment-date', 'list/by/credit-date', 'information', '{id}/pdf']) {
      expect(doc.paths, path).toHaveProperty([`${BASE}/${path}`]);
    }
    expect(doc.paths).toHaveProperty(['/sandbox/bankslips/{id}/pay']);
    expect(Object.keys(doc.paths[`${BASE}/{id}/pdf`].get.responses[200].content)).toEqual(['application/pdf']);
    expect(doc.paths[`${BASE}/information`].get.responses[404].content['application/json'].schema.properties).toHaveProperty('success');
  });
});
