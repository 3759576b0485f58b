import { discountLine, slipDiscounts } from './discounts.js';
import PDFDocument from 'pdfkit';
import QRCode from 'qrcode';
import { formatLine, mod11Dv } from '../../domain/boleto.js';
import { encodeItf } from '../../domain/interleaved-2of5.js';
import { formatFixed } from '../../domain/money.js';
import { PERCENT_DECIMALS } from '../../domain/late-payment.js';
import type { BankConfig } from '../../bank/config.js';
import { SPECIES } from './cnab/codes.js';
import { STATUS, type BankSlipRow } from './row.js';

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
  /** The merchant the slip was issued for: printed as sacador/avalista (beneficiário final). */
  merchant: { name: string; legal_name: string | null; document_number: string };
  /** The beneficiary at the bank (the operator holding the collection agreement) and its account. */
  bank: BankConfig;
}

const brDate = (iso: string) => `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}`;
const brMoney = (cents: number) => {
  const [int, frac] = formatFixed(BigInt(cents), 2).split('.');
  return `R$ ${int.replace(/\B(?=(\d{3})+(?!\d))/g, '.')},${frac}`;
};
const brPercent = (scaled: number) => `${formatFixed(BigInt(scaled), PERCENT_DECIMALS).replace(/\.?0+$/, '').replace('.', ',')}%`;
/** "CPF 529.982.247-25" or "CNPJ 11.222.333/0001-81": the kind of document named, never "CPF/CNPJ". */
export const formatDocument = (doc: string) =>
  doc.length === 11
    ? `CPF ${doc.slice(0, 3)}.${doc.slice(3, 6)}.${doc.slice(6, 9)}-${doc.slice(9)}`
    : `CNPJ ${doc.slice(0, 2)}.${doc.slice(2, 5)}.${doc.slice(5, 8)}/${doc.slice(8, 12)}-${doc.slice(12)}`;
const withDv = (number: string, dv: string) => (dv ? `${number}-${dv}` : number);

/** A labelled box of the slip's grid: small label on top, value below. */
function field(doc: Doc, x: number, y: number, width: number, label: string, value: string, options: { bold?: boolean; align?: 'left' | 'right' } = {}): void {
  doc.rect(x, y, width, ROW).lineWidth(0.5).stroke();
  doc.font('Helvetica').fontSize(6).text(label, x + 2, y + 2, { width: width - 4, lineBreak: false });
  // One line, cut with an ellipsis: a long name must not spill into the box below.
  doc.font(options.bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(9).text(value, x + 2, y + 11, { width: width - 4, height: 11, align: options.align ?? 'left', ellipsis: true });
}

/** The bank's name and code (with its mod-11 DV) and the digitable line, over the part's title. */
function header(doc: Doc, y: number, bankName: string, bankCode: string, line: string, title: string): void {
  doc.font('Helvetica-Bold').fontSize(9).text(bankName, PAGE_LEFT, y + 4, { width: 110, lineBreak: false, ellipsis: true });
  doc.font('Helvetica-Bold').fontSize(14).text(`${bankCode}-${mod11Dv(bankCode)}`, PAGE_LEFT + 115, y, { width: 60 });
  doc.font('Helvetica-Bold').fontSize(10).text(formatLine(line), PAGE_LEFT + 175, y + 3, { width: PAGE_WIDTH - 175, align: 'right' });
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
  const lines: string[] = slipDiscounts(slip).map((d) => discountLine(d, brMoney, brDate));
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

/** Where the slip may be paid: until the due date, or until its dateLimit when late payment is allowed. */
export function paymentPlace(slip: Pick<BankSlipRow, 'overdue_allow' | 'overdue_date_limit'>): string {
  if (slip.overdue_allow === 1 && slip.overdue_date_limit) return `Pagável em qualquer banco até ${brDate(slip.overdue_date_limit)}`;
  return 'Pagável em qualquer banco até o vencimento';
}

/** The amounts the bank fills when the slip is paid: blank on a slip to pay, the received ones on a paid slip. */
function charged(slip: BankSlipRow): { late: string; total: string } {
  if (slip.status_bill !== STATUS.paid || slip.paid_value === null) return { late: '', total: '' };
  const late = (slip.penalty_received ?? 0) + (slip.interest_received ?? 0);
  return { late: late > 0 ? brMoney(late) : '', total: brMoney(slip.paid_value) };
}

/**
 * The printable slip: the payer's receipt on top, then the "ficha de compensação" with every box
 * a payer and a bank expect (bank, local de pagamento, beneficiário with its address,
 * agência/código do beneficiário, nosso número, carteira, espécie, quantidade/valor, the
 * deductions and additions, valor cobrado, pagador, sacador/avalista), the ITF barcode of the 44
 * digits and, when the slip has one, the Pix QR code. `now` is business time (the PDF's date).
 */
export function renderSlipPdf({ slip, merchant, bank }: PrintableSlip, now: Date, options: { compress?: boolean } = {}): Promise<Buffer> {
  const doc = new PDFDocument({ size: 'A4', margin: PAGE_LEFT, compress: options.compress ?? true, info: { Title: `Boleto ${slip.our_number}`, Author: merchant.name, CreationDate: now } });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const bankCode = slip.bar_code!.slice(0, 3);
  const line = slip.digitable_line!;
  const beneficiary = `${bank.beneficiaryName} - ${formatDocument(bank.beneficiaryDocument)}`;
  const beneficiaryCode = `${withDv(bank.agency, bank.agencyDv)} / ${withDv(bank.account, bank.accountDv)}`;
  const guarantor = `${merchant.legal_name ?? merchant.name} - ${formatDocument(merchant.document_number)}`;
  const payer = `${slip.payer_name} - ${formatDocument(slip.payer_document)}`;
  const documentNumber = slip.our_number!;
  const amounts = charged(slip);
  const w = PAGE_WIDTH;
  const right = 130;
  const leftWidth = w - right;
  const rightX = PAGE_LEFT + leftWidth;
  const row = (cells: [string, string, number][], y: number) => {
    let x = PAGE_LEFT;
    for (const [label, value, width] of cells) {
      field(doc, x, y, width, label, value);
      x += width;
    }
  };

  // Payer's receipt.
  let y = PAGE_LEFT;
  header(doc, y, bank.bankName, bankCode, line, 'Recibo do Pagador');
  y += 30;
  field(doc, PAGE_LEFT, y, leftWidth, 'Beneficiário', beneficiary);
  field(doc, rightX, y, right, 'Vencimento', brDate(slip.due_date), { bold: true, align: 'right' });
  y += ROW;
  field(doc, PAGE_LEFT, y, leftWidth, 'Pagador', payer);
  field(doc, rightX, y, right, 'Agência/Código do beneficiário', beneficiaryCode, { align: 'right' });
  y += ROW;
  field(doc, PAGE_LEFT, y, leftWidth, 'Sacador/Avalista', guarantor);
  field(doc, rightX, y, right, 'Nosso número', slip.our_number!, { align: 'right' });
  y += ROW;
  row([['Nº do documento', documentNumber, 130], ['Data do documento', brDate(slip.issue_date), 100], ['(=) Valor cobrado', amounts.total, leftWidth - 230]], y);
  field(doc, rightX, y, right, '(=) Valor do documento', brMoney(slip.value), { bold: true, align: 'right' });
  y += ROW + 14;
  doc.moveTo(PAGE_LEFT, y).lineTo(PAGE_LEFT + w, y).dash(3, { space: 3 }).stroke().undash();
  doc.font('Helvetica').fontSize(6).text('Corte na linha pontilhada', PAGE_LEFT, y + 2, { width: w, align: 'right' });

  // Ficha de compensação.
  y += 22;
  header(doc, y, bank.bankName, bankCode, line, 'Ficha de Compensação');
  y += 30;
  field(doc, PAGE_LEFT, y, leftWidth, 'Local de pagamento', paymentPlace(slip));
  field(doc, rightX, y, right, 'Vencimento', brDate(slip.due_date), { bold: true, align: 'right' });
  y += ROW;
  field(doc, PAGE_LEFT, y, leftWidth, 'Beneficiário', beneficiary);
  field(doc, rightX, y, right, 'Agência/Código do beneficiário', beneficiaryCode, { align: 'right' });
  y += ROW;
  field(doc, PAGE_LEFT, y, leftWidth, 'Endereço do beneficiário', bank.beneficiaryAddress);
  field(doc, rightX, y, right, 'Nosso número', slip.our_number!, { align: 'right' });
  y += ROW;
  row([['Data do documento', brDate(slip.issue_date), 80], ['Nº do documento', documentNumber, 110], ['Espécie doc.', SPECIES.printed, 50], ['Aceite', 'N', 40], ['Data processamento', brDate(slip.issue_date), leftWidth - 280]], y);
  field(doc, rightX, y, right, '(=) Valor do documento', brMoney(slip.value), { bold: true, align: 'right' });
  y += ROW;
  row([['Uso do banco', '', 80], ['Carteira', bank.wallet, 60], ['Espécie', 'R$', 50], ['Quantidade', '', 100], ['(x) Valor', '', leftWidth - 290]], y);
  field(doc, rightX, y, right, '(-) Desconto / Abatimento', '', { align: 'right' });
  y += ROW;

  // Instructions on the left (with the Pix QR code when present); the bank's boxes on the right.
  const box = 4 * ROW;
  doc.rect(PAGE_LEFT, y, leftWidth, box).lineWidth(0.5).stroke();
  doc.font('Helvetica').fontSize(6).text('Instruções (texto de responsabilidade do beneficiário)', PAGE_LEFT + 2, y + 2);
  const qrSize = box - 16;
  doc.font('Helvetica').fontSize(8).text(instructions(slip).join('\n'), PAGE_LEFT + 4, y + 12, { width: leftWidth - (slip.pix_emv ? qrSize + 16 : 8) });
  if (slip.pix_emv) {
    qrCode(doc, rightX - qrSize - 6, y + 4, qrSize, slip.pix_emv);
    doc.font('Helvetica').fontSize(6).text('Pague com Pix', rightX - qrSize - 6, y + box - 10, { width: qrSize, align: 'center' });
  }
  const rightBoxes: [string, string][] = [
    ['(-) Outras deduções', ''],
    ['(+) Mora / Multa', amounts.late],
    ['(+) Outros acréscimos', ''],
    ['(=) Valor cobrado', amounts.total],
  ];
  rightBoxes.forEach(([label, value], i) => field(doc, rightX, y + i * ROW, right, label, value, { align: 'right' }));
  y += box;

  doc.rect(PAGE_LEFT, y, w, 46).lineWidth(0.5).stroke();
  doc.font('Helvetica').fontSize(6).text('Pagador', PAGE_LEFT + 2, y + 2);
  doc.font('Helvetica').fontSize(8).text(
    [payer, `${slip.payer_street_and_number} - ${slip.payer_neighborhood}`, `${slip.payer_zip_code.slice(0, 5)}-${slip.payer_zip_code.slice(5)} ${slip.payer_city}/${slip.payer_state}`].join('\n'),
    PAGE_LEFT + 4,
    y + 11,
    { width: w - 8 },
  );
  y += 46;
  field(doc, PAGE_LEFT, y, w, 'Sacador/Avalista', guarantor);
  y += ROW + 10;
  barcode(doc, PAGE_LEFT + 10 * NARROW, y, slip.bar_code!);
  doc.font('Helvetica').fontSize(6).text('Autenticação mecânica - Ficha de Compensação', PAGE_LEFT, y + BAR_HEIGHT + 4, { width: w, align: 'right' });

  if (slip.pix_emv) {
    doc.font('Helvetica').fontSize(6).text(`Pix copia e cola: ${slip.pix_emv}`, PAGE_LEFT, y + BAR_HEIGHT + 16, { width: w });
  }
  doc.end();
  return done;
}
