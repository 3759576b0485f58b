import { addDays, daysBetween, nextBusinessDay, toDayNumber } from '../../../domain/calendar.js';
import { cnabDate, formatRecord } from '../../../domain/cnab240.js';
import { BATCH_HEADER, BATCH_LAYOUT_VERSION, BATCH_TRAILER, FILE_HEADER, FILE_LAYOUT_VERSION, FILE_TRAILER, SEGMENT_P, SEGMENT_Q, SEGMENT_R } from '../../../domain/cnab240-layout.js';
import { roundHalfUp } from '../../../domain/money.js';
import type { BankConfig } from '../bank-config.js';
import type { BankSlipRow } from '../row.js';
import { REMITTANCE, SPECIES, WALLET_SIMPLE } from './codes.js';

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

/**
 * The remittance file (remessa) of one day: file header, one batch of cobrança with segments
 * P, Q and R for every new slip and a segment P "pedido de baixa" for every cancelled one, the
 * batch trailer and the file trailer, lines ended by CRLF as banks read them. The file number
 * (NSA) is the day's number since 1970, so writing the same day's file again gives the same
 * number and banks refuse a duplicate instead of registering slips twice.
 */
export function buildRemittance(input: RemittanceInput): string {
  const { bank, bankCode, date } = input;
  const lines = fileHeaders(bankCode, bank, date, input.now, 'remessa');
  let sequence = 0;
  let total = 0n;
  const detail = (layout: typeof SEGMENT_P, segment: string, movement: string, values: Record<string, string | number | bigint | undefined>) =>
    lines.push(formatRecord(layout, { bank: bankCode, batch: '1', sequence: String(++sequence), segment, movement, ...values }));
  for (const { slip, guarantor } of input.entries) {
    total += BigInt(slip.value);
    detail(SEGMENT_P, 'P', REMITTANCE.entry, segmentP(slip, bank));
    detail(SEGMENT_Q, 'Q', REMITTANCE.entry, segmentQ(slip, guarantor));
    detail(SEGMENT_R, 'R', REMITTANCE.entry, segmentR(slip));
  }
  for (const slip of input.cancellations) detail(SEGMENT_P, 'P', REMITTANCE.writeOff, segmentP(slip, bank));
  return fileEnd(bankCode, lines, sequence, { simpleCount: String(input.entries.length), simpleTotal: total });
}

/**
 * The file header and the batch header of a one-batch cobrança file, remessa or retorno (the
 * sandbox writes the bank's return with the same headers). The file number (NSA) is the day's
 * number since 1970.
 */
export function fileHeaders(bankCode: string, bank: BankConfig, date: string, now: Date, kind: 'remessa' | 'retorno'): string[] {
  const nsa = String(toDayNumber(date));
  const company = {
    bank: bankCode,
    companyDocumentType: documentType(bank.beneficiaryDocument),
    companyDocument: bank.beneficiaryDocument,
    agreement: bank.agreement,
    agency: bank.agency,
    agencyDv: bank.agencyDv,
    account: bank.account,
    accountDv: bank.accountDv,
    companyName: bank.beneficiaryName,
  };
  const iso = now.toISOString();
  return [
    formatRecord(FILE_HEADER, {
      ...company,
      bankName: bank.bankName,
      direction: kind === 'remessa' ? '1' : '2',
      generatedDate: cnabDate(iso.slice(0, 10)),
      generatedTime: iso.slice(11, 19).replaceAll(':', ''),
      fileNumber: nsa,
      layoutVersion: FILE_LAYOUT_VERSION,
    }),
    formatRecord(BATCH_HEADER, { ...company, batch: '1', operation: kind === 'remessa' ? 'R' : 'T', layoutVersion: BATCH_LAYOUT_VERSION, fileNumber: nsa, recordedDate: cnabDate(date) }),
  ];
}

/** The batch and file trailers (counts include every header and trailer), then the whole file, CRLF-ended. */
export function fileEnd(bankCode: string, lines: string[], details: number, totals: Record<string, string | bigint> = {}): string {
  lines.push(formatRecord(BATCH_TRAILER, { bank: bankCode, batch: '1', records: String(details + 2), ...totals }));
  lines.push(formatRecord(FILE_TRAILER, { bank: bankCode, batches: '1', records: String(lines.length + 1) }));
  return `${lines.join('\r\n')}\r\n`;
}

/** 1 CPF, 2 CNPJ. */
export const documentType = (document: string) => (document.length === 11 ? '1' : '2');
/** CPF/CNPJ right-aligned in 15 positions; the alphanumeric CNPJ (2026) is written as it is. */
export const document15 = (document: string) => document.padStart(15, '0');

function segmentP(slip: BankSlipRow, bank: BankConfig) {
  const late = slip.overdue_allow === 1;
  const interest = late && slip.overdue_interest_percent > 0;
  const writeOff = writeOffTerms(slip);
  return {
    agency: bank.agency,
    agencyDv: bank.agencyDv,
    account: bank.account,
    accountDv: bank.accountDv,
    ourNumber: slip.our_number ?? '',
    wallet: WALLET_SIMPLE,
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
    discountCode: '0',
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

function segmentR(slip: BankSlipRow) {
  const penalty = slip.overdue_allow === 1 && slip.overdue_penalty_percent > 0;
  return {
    // 2: a percent of the value, from the day after the due date; 0: no penalty.
    penaltyCode: penalty ? '2' : '0',
    penaltyDate: penalty ? cnabDate(addDays(slip.due_date, 1)) : '',
    penaltyRate: penalty ? percent2(slip.overdue_penalty_percent) : 0n,
    message3: slip.overdue_allow === 1 ? `NAO RECEBER APOS ${cnabDate(slip.overdue_date_limit).replace(/^(\d\d)(\d\d)/, '$1/$2/')}` : 'NAO RECEBER APOS O VENCIMENTO',
  };
}
