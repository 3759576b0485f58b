import { slipDiscounts, type SlipDiscount } from '../discounts.js';
import { addDays, daysBetween, nextBusinessDay, toDayNumber } from '../../../domain/calendar.js';
import { cnabDate, formatRecord, type Layout } from '../../../domain/cnab240.js';
import { bankLayout, type BankLayout } from '../../../domain/cnab240-banks.js';
import { roundHalfUp } from '../../../domain/money.js';
import type { BankConfig } from '../../../bank/config.js';
import type { BankSlipRow } from '../row.js';
import { REMITTANCE, SPECIES } from './codes.js';

/** The sacador/avalista printed and sent for a slip: the merchant it was issued for. */
export interface Guarantor {
  name: string;
  document: string;
}

export interface RemittanceInput {
  bankCode: string;
  bank: BankConfig;
  /** The day whose slips the file carries. */
  date: string;
  /** When the file is written (business time). */
  now: Date;
  /** Slips issued (and registered) on `date`, each with its merchant: entries (P, Q, R). */
  entries: { slip: BankSlipRow; guarantor: Guarantor }[];
  /** Slips the merchant cancelled on `date`: write-off requests (P, movement 02). */
  cancellations: BankSlipRow[];
}

/** FEBRABAN writes percents with 2 decimals; ours carry 4 (an operator's 1.2345% is sent as 1.23%). */
const percent2 = (scaled4: number) => roundHalfUp(BigInt(scaled4), 4, 2);

/**
 * Days after the due date the bank keeps accepting the slip before writing it off: up to the
 * slip's dateLimit when late payment is allowed; otherwise up to the next business day (a slip
 * due on a weekend is paid at face value on Monday, src/domain/late-payment.ts).
 * FEBRABAN's field has 3 digits: a longer limit is sent as "do not write off" (code 2).
 */
export function writeOffTerms(slip: Pick<BankSlipRow, 'due_date' | 'overdue_allow' | 'overdue_date_limit'>): { code: string; days: string } {
  const last = slip.overdue_allow === 1 && slip.overdue_date_limit ? slip.overdue_date_limit : nextBusinessDay(slip.due_date);
  const days = daysBetween(slip.due_date, last);
  return days > 999 ? { code: '2', days: '' } : { code: '1', days: String(days).padStart(3, '0') };
}

/** A batch's record sequence has 5 digits (positions 9-13): at most this many detail records a batch. */
export const MAX_BATCH_DETAILS = 99_999;

type Values = Record<string, string | number | bigint | undefined>;
/** One detail record: its layout, segment letter, movement and values. */
type Detail = [layout: Layout, segment: string, movement: string, values: Values];

/**
 * The remittance file (remessa) of one day, in the configured bank's layout: file header,
 * batches of cobrança with segments P, Q and R for every new slip and a segment P "pedido de
 * baixa" for every cancelled one, each batch with its trailer, and the file trailer; lines
 * ended by CRLF as banks read them. The file number (NSA) is the day's number since 1970, so
 * writing the same day's file again gives the same number and banks refuse a duplicate instead
 * of registering slips twice.
 */
export function buildRemittance(input: RemittanceInput): string {
  const { bank, bankCode } = input;
  const layout = bankLayout(bankCode);
  const file = new CnabFileWriter(bankCode, bank, input.date, input.now, 'remessa');
  for (const { slip, guarantor } of input.entries) {
    file.title(BigInt(slip.value), [
      [layout.segmentP, 'P', REMITTANCE.entry, segmentP(slip, bank, bankCode)],
      [layout.segmentQ, 'Q', REMITTANCE.entry, segmentQ(slip, guarantor)],
      [layout.segmentR, 'R', REMITTANCE.entry, segmentR(slip)],
    ]);
  }
  // A write-off request is not a title entering the bank: not counted in the batch's totals.
  for (const slip of input.cancellations) file.title(null, [[layout.segmentP, 'P', REMITTANCE.writeOff, segmentP(slip, bank, bankCode)]]);
  return file.end();
}

/**
 * Writes a cobrança file of any size: a title's records (P, Q, R) stay in one batch, and a new
 * batch starts when the next title would overflow the 5-digit record sequence. Each batch
 * trailer counts its own records (header and trailer included) and its titles in cobrança
 * simples (count and value, positions 24-46); the file trailer counts batches and every record.
 */
export class CnabFileWriter {
  private readonly layout: BankLayout;
  private readonly lines: string[] = [];
  private batch = 0;
  private details = 0;
  private count = 0;
  private total = 0n;

  constructor(
    private readonly bankCode: string,
    private readonly bank: BankConfig,
    private readonly date: string,
    private readonly now: Date,
    private readonly kind: 'remessa' | 'retorno',
  ) {
    this.layout = bankLayout(bankCode);
    this.lines.push(formatRecord(this.layout.fileHeader, fileHeaderValues(bankCode, bank, date, now, kind)));
  }

  /** One title's records; `valueCents` null for records that are not a title in cobrança (a write-off request). */
  title(valueCents: bigint | null, records: Detail[]): void {
    if (this.batch === 0 || this.details + records.length > MAX_BATCH_DETAILS) this.openBatch();
    for (const [layout, segment, movement, values] of records) {
      this.lines.push(formatRecord(layout, { bank: this.bankCode, batch: String(this.batch), sequence: String(++this.details), segment, movement, ...values }));
    }
    if (valueCents !== null) {
      this.count++;
      this.total += valueCents;
    }
  }

  /** The whole file, CRLF-ended; a day without titles still has one (empty) batch. */
  end(): string {
    if (this.batch === 0) this.openBatch();
    this.closeBatch();
    this.lines.push(formatRecord(this.layout.fileTrailer, { bank: this.bankCode, batches: String(this.batch), records: String(this.lines.length + 1) }));
    return `${this.lines.join('\r\n')}\r\n`;
  }

  private openBatch(): void {
    if (this.batch > 0) this.closeBatch();
    this.batch++;
    this.details = 0;
    this.count = 0;
    this.total = 0n;
    this.lines.push(formatRecord(this.layout.batchHeader, batchHeaderValues(this.bankCode, this.bank, this.date, this.kind, this.batch)));
  }

  private closeBatch(): void {
    this.lines.push(
      formatRecord(this.layout.batchTrailer, { bank: this.bankCode, batch: String(this.batch), records: String(this.details + 2), simpleCount: String(this.count), simpleTotal: this.total }),
    );
  }
}

/** The beneficiary's account as every header carries it, with the bank's convênio pieces (BB: carteira and variação). */
function companyValues(bankCode: string, bank: BankConfig): Values {
  return {
    bank: bankCode,
    companyDocumentType: documentType(bank.beneficiaryDocument),
    companyDocument: bank.beneficiaryDocument,
    agreement: bank.agreement,
    wallet: bank.wallet,
    walletVariation: bank.walletVariation,
    agency: bank.agency,
    agencyDv: bank.agencyDv,
    account: bank.account,
    accountDv: bank.accountDv,
    companyName: bank.beneficiaryName,
  };
}

function fileHeaderValues(bankCode: string, bank: BankConfig, date: string, now: Date, kind: 'remessa' | 'retorno'): Values {
  const iso = now.toISOString();
  return {
    ...companyValues(bankCode, bank),
    bankName: bank.bankName,
    direction: kind === 'remessa' ? '1' : '2',
    generatedDate: cnabDate(iso.slice(0, 10)),
    generatedTime: iso.slice(11, 19).replaceAll(':', ''),
    fileNumber: String(toDayNumber(date)),
    layoutVersion: bankLayout(bankCode).fileLayoutVersion,
  };
}

function batchHeaderValues(bankCode: string, bank: BankConfig, date: string, kind: 'remessa' | 'retorno', batch: number): Values {
  return {
    ...companyValues(bankCode, bank),
    batch: String(batch),
    operation: kind === 'remessa' ? 'R' : 'T',
    layoutVersion: bankLayout(bankCode).batchLayoutVersion,
    fileNumber: String(toDayNumber(date)),
    recordedDate: cnabDate(date),
  };
}

/** 1 CPF, 2 CNPJ. */
export const documentType = (document: string) => (document.length === 11 ? '1' : '2');
/** CPF/CNPJ for a 15-position `doc` field (the field pads it: right-aligned, zeros on the left). */
export const document15 = (document: string) => document;

function segmentP(slip: BankSlipRow, bank: BankConfig, bankCode: string) {
  const late = slip.overdue_allow === 1;
  const interest = late && slip.overdue_interest_percent > 0;
  const writeOff = writeOffTerms(slip);
  return {
    agency: bank.agency,
    agencyDv: bank.agencyDv,
    account: bank.account,
    accountDv: bank.accountDv,
    ourNumber: slip.our_number ?? '',
    wallet: bankLayout(bankCode).walletCode(bank.wallet),
    documentNumber: slip.our_number ?? '',
    dueDate: cnabDate(slip.due_date),
    value: BigInt(slip.value),
    species: SPECIES.code,
    acceptance: 'N',
    issueDate: cnabDate(slip.issue_date),
    // 2: monthly rate, from the day after the due date; 3: no interest.
    interestCode: interest ? '2' : '3',
    interestDate: interest ? cnabDate(addDays(slip.due_date, 1)) : '',
    interestRate: interest ? percent2(slip.overdue_interest_percent) : 0n,
    ...discountFields(slipDiscounts(slip)[0], ''),
    companyReference: slip.reference_code ?? '',
    writeOffCode: writeOff.code,
    writeOffDays: writeOff.days,
  };
}

function segmentQ(slip: BankSlipRow, guarantor: Guarantor) {
  return {
    payerDocumentType: documentType(slip.payer_document),
    payerDocument: document15(slip.payer_document),
    payerName: slip.payer_name,
    payerAddress: slip.payer_street_and_number,
    payerNeighborhood: slip.payer_neighborhood,
    payerZip: slip.payer_zip_code.slice(0, 5),
    payerZipSuffix: slip.payer_zip_code.slice(5, 8),
    payerCity: slip.payer_city,
    payerState: slip.payer_state,
    guarantorDocumentType: documentType(guarantor.document),
    guarantorDocument: document15(guarantor.document),
    guarantorName: guarantor.name,
  };
}

/**
 * A discount as FEBRABAN writes it (P 142-165, R 18-41 and 42-65): code 1 a fixed value until
 * the date, 2 a percent until the date (13,2 either way); 0 with no discount.
 */
function discountFields(d: SlipDiscount | undefined, prefix: '' | '2' | '3') {
  const key = (name: string) => (prefix === '' ? `discount${name}` : `discount${prefix}${name}`);
  if (!d) return { [key('Code')]: '0' };
  return { [key('Code')]: d.type === 'fixed' ? '1' : '2', [key('Date')]: cnabDate(d.until), [key('Value')]: d.value };
}

function segmentR(slip: BankSlipRow) {
  const penalty = slip.overdue_allow === 1 && slip.overdue_penalty_percent > 0;
  const [, second, third] = slipDiscounts(slip);
  return {
    ...discountFields(second, '2'),
    ...discountFields(third, '3'),
    // 2: a percent of the value, from the day after the due date; 0: no penalty.
    penaltyCode: penalty ? '2' : '0',
    penaltyDate: penalty ? cnabDate(addDays(slip.due_date, 1)) : '',
    penaltyRate: penalty ? percent2(slip.overdue_penalty_percent) : 0n,
    message3: slip.overdue_allow === 1 ? `NAO RECEBER APOS ${cnabDate(slip.overdue_date_limit).replace(/^(\d\d)(\d\d)/, '$1/$2/')}` : 'NAO RECEBER APOS O VENCIMENTO',
  };
}
