import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
import { formatLine } from '../../src/domain/boleto.js';
import { decodeItf } from '../../src/domain/itf.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { testDialect } from '../support/database.js';
import { BASE, issue, issued, slipBody } from './support.js';

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
    expect(text).toContain('João Conceição - CPF/CNPJ 529.982.247-25');
    expect(text).toContain('Loja Teste - CPF/CNPJ 11.222.333/0001-81');
    expect(text).toContain('R$ 1.234,56');
    expect(text).toContain(slip.ourNumber);
    expect(text).toContain('001-9');
    expect(text).toContain('Pague com Pix');
    expect(text).toContain(slip.pixEmv);
  });

  it.skipIf(!canvasModule)('draws the interleaved 2 of 5 barcode of the 44 digits (rendered and scanned back)', async () => {
    const res = await getPdf(slip.id);
    expect(await scanBarcode(res.rawPayload)).toBe(slip.barCode);
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
