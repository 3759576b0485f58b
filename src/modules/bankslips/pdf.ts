import PDFDocument from 'pdfkit';
import QRCode from 'qrcode';
import { formatLine, mod11Dv } from '../../domain/boleto.js';
import { encodeItf } from '../../domain/itf.js';
import { formatFixed } from '../../domain/money.js';
import { PERCENT_DECIMALS } from './charges.js';
import type { BankSlipRow } from './repository.js';

type Doc = PDFKit.PDFDocument;

const MM = 72 / 25.4;
const PAGE_LEFT = 36;
const PAGE_WIDTH = 595.28 - 2 * PAGE_LEFT;
const ROW = 24;
// FEBRABAN print: narrow bar 0.254 mm (1:3 ratio), 13 mm high; the 44 digits are then ~103 mm.
const NARROW = 0.254 * MM;
const BAR_HEIGHT = 13 * MM;

export interface PrintableSlip {
  slip: BankSlipRow;
  merchant: { name: string; legal_name: string | null; document_number: string };
}

const brDate = (iso: string) => `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}`;
const brMoney = (cents: number) => {
  const [int, frac] = formatFixed(BigInt(cents), 2).split('.');
  return `R$ ${int.replace(/\B(?=(\d{3})+(?!\d))/g, '.')},${frac}`;
};
const brPercent = (scaled: number) => `${formatFixed(BigInt(scaled), PERCENT_DECIMALS).replace(/\.?0+$/, '').replace('.', ',')}%`;
const formatDocument = (doc: string) =>
  doc.length === 11 ? `${doc.slice(0, 3)}.${doc.slice(3, 6)}.${doc.slice(6, 9)}-${doc.slice(9)}` : `${doc.slice(0, 2)}.${doc.slice(2, 5)}.${doc.slice(5, 8)}/${doc.slice(8, 12)}-${doc.slice(12)}`;

/** A labelled box of the slip's grid: small label on top, value below. */
function field(doc: Doc, x: number, y: number, width: number, label: string, value: string, options: { bold?: boolean; align?: 'left' | 'right' } = {}): void {
  doc.rect(x, y, width, ROW).lineWidth(0.5).stroke();
  doc.font('Helvetica').fontSize(6).text(label, x + 2, y + 2, { width: width - 4, lineBreak: false });
  doc.font(options.bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(9).text(value, x + 2, y + 11, { width: width - 4, align: options.align ?? 'left', lineBreak: false, ellipsis: true });
}

function header(doc: Doc, y: number, bankCode: string, line: string, title: string): void {
  doc.font('Helvetica-Bold').fontSize(14).text(`${bankCode}-${mod11Dv(bankCode)}`, PAGE_LEFT, y, { width: 60 });
  doc.font('Helvetica-Bold').fontSize(10).text(formatLine(line), PAGE_LEFT + 70, y + 3, { width: PAGE_WIDTH - 70, align: 'right' });
  doc.font('Helvetica').fontSize(7).text(title, PAGE_LEFT, y + 18);
}

/** The ITF barcode of the 44 digits, each module NARROW wide, bars only (spaces are the paper). */
function barcode(doc: Doc, x: number, y: number, digits: string): void {
  const modules = encodeItf(digits);
  for (let i = 0; i < modules.length; ) {
    let j = i;
    while (j < modules.length && modules[j] === modules[i]) j++;
    if (modules[i] === '1') doc.rect(x + i * NARROW, y, (j - i) * NARROW, BAR_HEIGHT).fill('black');
    i = j;
  }
}

/** The Pix QR code drawn as vector squares (no image decoding, crisp at any zoom). */
function qrCode(doc: Doc, x: number, y: number, size: number, text: string): void {
  const qr = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const n = qr.modules.size;
  const cell = size / n;
  for (let row = 0; row < n; row++) {
    for (let col = 0; col < n; col++) if (qr.modules.get(row, col)) doc.rect(x + col * cell, y + row * cell, cell, cell);
  }
  doc.fill('black');
}

function instructions(slip: BankSlipRow): string[] {
  const lines: string[] = [];
  if (slip.overdue_allow === 1) {
    if (slip.overdue_penalty_percent > 0) lines.push(`Após o vencimento, multa de ${brPercent(slip.overdue_penalty_percent)} sobre o valor.`);
    if (slip.overdue_interest_percent > 0) lines.push(`Após o vencimento, juros de ${brPercent(slip.overdue_interest_percent)} ao mês, pro rata dia.`);
    lines.push(`Não receber após ${brDate(slip.overdue_date_limit!)}.`);
  } else {
    lines.push('Não receber após o vencimento.');
  }
  if (slip.reference_code) lines.push(`Referência: ${slip.reference_code}`);
  return lines;
}

/**
 * The printable slip: the payer's receipt on top, then the "ficha de compensação" with the
 * digitable line, beneficiary and payer blocks, instructions, the ITF barcode of the 44 digits
 * and, when the slip has one, the Pix QR code. `now` is business time (the PDF creation date).
 */
export function renderSlipPdf({ slip, merchant }: PrintableSlip, now: Date, options: { compress?: boolean } = {}): Promise<Buffer> {
  const doc = new PDFDocument({ size: 'A4', margin: PAGE_LEFT, compress: options.compress ?? true, info: { Title: `Boleto ${slip.our_number}`, Author: merchant.name, CreationDate: now } });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const bankCode = slip.bar_code!.slice(0, 3);
  const line = slip.digitable_line!;
  const beneficiary = `${merchant.legal_name ?? merchant.name} - CPF/CNPJ ${formatDocument(merchant.document_number)}`;
  const payer = `${slip.payer_name} - CPF/CNPJ ${formatDocument(slip.payer_document)}`;
  const w = PAGE_WIDTH;
  const right = 130;

  // Payer's receipt.
  let y = PAGE_LEFT;
  header(doc, y, bankCode, line, 'Recibo do Pagador');
  y += 30;
  field(doc, PAGE_LEFT, y, w - right, 'Beneficiário', beneficiary);
  field(doc, PAGE_LEFT + w - right, y, right, 'Vencimento', brDate(slip.due_date), { bold: true, align: 'right' });
  y += ROW;
  field(doc, PAGE_LEFT, y, w - right, 'Pagador', payer);
  field(doc, PAGE_LEFT + w - right, y, right, 'Nosso número', slip.our_number!, { align: 'right' });
  y += ROW;
  field(doc, PAGE_LEFT, y, w - right, 'Data do documento', brDate(slip.issue_date));
  field(doc, PAGE_LEFT + w - right, y, right, '(=) Valor do documento', brMoney(slip.value), { bold: true, align: 'right' });
  y += ROW + 14;
  doc.moveTo(PAGE_LEFT, y).lineTo(PAGE_LEFT + w, y).dash(3, { space: 3 }).stroke().undash();
  doc.font('Helvetica').fontSize(6).text('Corte na linha pontilhada', PAGE_LEFT, y + 2, { width: w, align: 'right' });

  // Ficha de compensação.
  y += 22;
  header(doc, y, bankCode, line, 'Ficha de Compensação');
  y += 30;
  field(doc, PAGE_LEFT, y, w - right, 'Local de pagamento', 'Pagável em qualquer banco até o vencimento');
  field(doc, PAGE_LEFT + w - right, y, right, 'Vencimento', brDate(slip.due_date), { bold: true, align: 'right' });
  y += ROW;
  field(doc, PAGE_LEFT, y, w - right, 'Beneficiário', beneficiary);
  field(doc, PAGE_LEFT + w - right, y, right, 'Código do beneficiário', String(slip.account_number), { align: 'right' });
  y += ROW;
  const cells: [string, string, number][] = [
    ['Data do documento', brDate(slip.issue_date), 80],
    ['Nº do documento', slip.reference_code ?? slip.our_number!.slice(-10), 110],
    ['Espécie doc.', 'DM', 50],
    ['Aceite', 'N', 40],
    ['Data processamento', brDate(slip.issue_date), w - right - 280],
  ];
  let x = PAGE_LEFT;
  for (const [label, value, width] of cells) {
    field(doc, x, y, width, label, value);
    x += width;
  }
  field(doc, PAGE_LEFT + w - right, y, right, 'Nosso número', slip.our_number!, { align: 'right' });
  y += ROW;
  field(doc, PAGE_LEFT, y, 80, 'Espécie', 'R$');
  field(doc, PAGE_LEFT + 80, y, w - right - 80, 'Uso do banco', '');
  field(doc, PAGE_LEFT + w - right, y, right, '(=) Valor do documento', brMoney(slip.value), { bold: true, align: 'right' });
  y += ROW;

  // Instructions, with the Pix QR code beside them when present.
  const box = 110;
  doc.rect(PAGE_LEFT, y, w, box).lineWidth(0.5).stroke();
  doc.font('Helvetica').fontSize(6).text('Instruções (texto de responsabilidade do beneficiário)', PAGE_LEFT + 2, y + 2);
  doc.font('Helvetica').fontSize(8).text(instructions(slip).join('\n'), PAGE_LEFT + 4, y + 12, { width: w - box - 20 });
  if (slip.pix_emv) {
    qrCode(doc, PAGE_LEFT + w - box + 10, y + 6, box - 22, slip.pix_emv);
    doc.font('Helvetica').fontSize(6).text('Pague com Pix', PAGE_LEFT + w - box + 10, y + box - 12, { width: box - 22, align: 'center' });
  }
  y += box;

  doc.rect(PAGE_LEFT, y, w, 46).lineWidth(0.5).stroke();
  doc.font('Helvetica').fontSize(6).text('Pagador', PAGE_LEFT + 2, y + 2);
  doc.font('Helvetica').fontSize(8).text(
    [payer, `${slip.payer_street_and_number} - ${slip.payer_neighborhood}`, `${slip.payer_zip_code.slice(0, 5)}-${slip.payer_zip_code.slice(5)} ${slip.payer_city}/${slip.payer_state}`].join('\n'),
    PAGE_LEFT + 4,
    y + 11,
    { width: w - 8 },
  );
  y += 46 + 10;
  barcode(doc, PAGE_LEFT + 10 * NARROW, y, slip.bar_code!);
  doc.font('Helvetica').fontSize(6).text('Autenticação mecânica - Ficha de Compensação', PAGE_LEFT, y + BAR_HEIGHT + 4, { width: w, align: 'right' });

  if (slip.pix_emv) {
    doc.font('Helvetica').fontSize(6).text(`Pix copia e cola: ${slip.pix_emv}`, PAGE_LEFT, y + BAR_HEIGHT + 16, { width: w });
  }
  doc.end();
  return done;
}
