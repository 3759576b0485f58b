import { parseCnabCents, parseCnabDate, readRecord, RECORD_LENGTH, type Layout } from './cnab240.js';
import { BATCH_TRAILER, FILE_HEADER, FILE_TRAILER, SEGMENT_T, SEGMENT_U } from './cnab240-layout.js';

/** One slip's news in a return file: its T and U segments read together. */
export interface ReturnItem {
  /** 1-based line of the segment T. */
  line: number;
  movement: string;
  ourNumber: string;
  dueDate: string | null;
  valueCents: bigint;
  /** The bank's reason codes (motivos), blanks and zeros left out. */
  reasons: string[];
  /** Penalty and interest together (FEBRABAN has one field). */
  chargesCents: bigint;
  paidCents: bigint;
  occurrenceDate: string | null;
  creditDate: string | null;
}

export interface LineError {
  line: number;
  description: string;
}

export interface ParsedReturn {
  bankCode: string;
  items: ReturnItem[];
  errors: LineError[];
}

/**
 * Reads a CNAB 240 return file (retorno de cobrança): a file header, batches of T/U pairs, and
 * their trailers. Every problem is reported with its line, not only the first: the operator
 * fixes the file once. A file with any error is not applied at all (the caller's rule), so
 * `items` are only meaningful when `errors` is empty.
 */
export function parseReturnFile(text: string): ParsedReturn {
  // CRLF is what banks write; a final line break (or none) is the same file.
  const lines = text.replace(/\r\n/g, '\n').replace(/\n+$/, '').split('\n');
  const errors: LineError[] = [];
  const items: ReturnItem[] = [];
  const fail = (line: number, description: string) => errors.push({ line, description });
  let bankCode = '';
  let batches = 0;
  let batchRecords = 0;
  let inBatch = false;
  // The T read last, waiting for its U (item null: the T was unreadable, already reported).
  let pendingT: { item: ReturnItem | null; line: number } | null = null;

  const closeT = () => {
    if (pendingT) fail(pendingT.line, 'segment T without its segment U on the next line');
    pendingT = null;
  };

  lines.forEach((raw, index) => {
    const n = index + 1;
    if (raw.length !== RECORD_LENGTH) {
      fail(n, `record has ${raw.length} characters; CNAB 240 records have ${RECORD_LENGTH}`);
      // Still a record of its batch, and still the T or U it seems to be: one bad line is one error.
      if (inBatch) batchRecords++;
      if (raw[7] === '3' && raw[13] === 'T') {
        closeT();
        pendingT = { item: null, line: n };
      } else if (raw[7] === '3' && raw[13] === 'U') pendingT = null;
      return;
    }
    const type = raw[7];
    if (n === 1) {
      if (type !== '0') return fail(n, 'the first record must be the file header (record type 0)');
      const header = readRecord(FILE_HEADER, raw);
      bankCode = header.bank;
      if (header.direction !== '2') fail(n, 'the file header does not say retorno (position 143 must be 2): is this a remittance file?');
      return;
    }
    if (inBatch) batchRecords++;
    switch (type) {
      case '1':
        if (inBatch) fail(n, 'batch header inside a batch (its trailer is missing)');
        inBatch = true;
        batchRecords = 1;
        batches++;
        return;
      case '3': {
        if (!inBatch) return fail(n, 'detail record outside a batch');
        const segment = raw[13];
        if (segment === 'T') {
          closeT();
          pendingT = { item: readT(raw, n, fail), line: n };
        } else if (segment === 'U') {
          if (!pendingT) return fail(n, 'segment U without a segment T before it');
          const { item } = pendingT as { item: ReturnItem | null };
          pendingT = null;
          if (item && readU(raw, n, item, fail)) items.push(item);
        } else {
          fail(n, `segment ${JSON.stringify(segment)} is not part of a return file (T and U are)`);
        }
        return;
      }
      case '5': {
        closeT();
        if (!inBatch) return fail(n, 'batch trailer without a batch header');
        const declared = number(readRecord(BATCH_TRAILER, raw).records);
        if (declared !== batchRecords) fail(n, `batch trailer counts ${declared ?? 'an unreadable number of'} records; the batch has ${batchRecords}`);
        inBatch = false;
        return;
      }
      case '9': {
        closeT();
        if (inBatch) fail(n, 'file trailer inside a batch (the batch trailer is missing)');
        if (n !== lines.length) fail(n, 'records after the file trailer');
        const trailer = readRecord(FILE_TRAILER, raw);
        const declaredBatches = number(trailer.batches);
        const declaredRecords = number(trailer.records);
        if (declaredBatches !== batches) fail(n, `file trailer counts ${declaredBatches ?? 'an unreadable number of'} batches; the file has ${batches}`);
        if (declaredRecords !== lines.length) fail(n, `file trailer counts ${declaredRecords ?? 'an unreadable number of'} records; the file has ${lines.length}`);
        return;
      }
      default:
        fail(n, `unknown record type ${JSON.stringify(type)} at position 8`);
    }
  });
  const last = lines.length > 0 ? lines[lines.length - 1] : '';
  if (lines.length === 0 || last.length !== RECORD_LENGTH || last[7] !== '9') fail(lines.length, 'the file does not end with a file trailer (record type 9)');
  return { bankCode, items, errors };
}

function number(text: string): number | null {
  return /^\d+$/.test(text) ? Number(text) : null;
}

function cents(values: Record<string, string>, field: string, label: string, layout: Layout, line: number, fail: (l: number, d: string) => void): bigint | null {
  const value = parseCnabCents(values[field]);
  if (value === null) {
    const [, start, end] = layout.find(([name]) => name === field)!;
    fail(line, `${label} (positions ${start}-${end}) is not an amount: ${JSON.stringify(values[field])}`);
  }
  return value;
}

function readT(raw: string, line: number, fail: (l: number, d: string) => void): ReturnItem | null {
  const t = readRecord(SEGMENT_T, raw);
  let ok = true;
  if (!/^\d{2}$/.test(t.movement)) {
    fail(line, `movement code (positions 16-17) is not a number: ${JSON.stringify(t.movement)}`);
    ok = false;
  }
  const ourNumber = t.ourNumber.trim();
  if (ourNumber === '') {
    fail(line, 'nosso número (positions 38-57) is blank');
    ok = false;
  }
  const value = cents(t, 'value', 'the slip value', SEGMENT_T, line, fail);
  const dueDate = parseCnabDate(t.dueDate);
  if (!ok || value === null) return null;
  const reasons = (t.reasons.match(/.{1,2}/g) ?? []).map((r) => r.trim()).filter((r) => r !== '' && r !== '00');
  return {
    line,
    movement: t.movement,
    ourNumber,
    dueDate,
    valueCents: value,
    reasons,
    chargesCents: 0n,
    paidCents: 0n,
    occurrenceDate: null,
    creditDate: null,
  };
}

/** Fills the item's amounts and dates from its segment U; false when one is unreadable. */
function readU(raw: string, line: number, item: ReturnItem, fail: (l: number, d: string) => void): boolean {
  const u = readRecord(SEGMENT_U, raw);
  const charges = cents(u, 'charges', 'juros/multa/encargos', SEGMENT_U, line, fail);
  const paid = cents(u, 'paidValue', 'the paid value', SEGMENT_U, line, fail);
  const occurrence = parseCnabDate(u.occurrenceDate);
  const credit = parseCnabDate(u.creditDate);
  let ok = charges !== null && paid !== null;
  if (u.occurrenceDate !== '00000000' && occurrence === null) {
    fail(line, `occurrence date (positions 138-145) is not a date DDMMAAAA: ${JSON.stringify(u.occurrenceDate)}`);
    ok = false;
  }
  if (u.creditDate !== '00000000' && credit === null) {
    fail(line, `credit date (positions 146-153) is not a date DDMMAAAA: ${JSON.stringify(u.creditDate)}`);
    ok = false;
  }
  if (u.movement !== item.movement) {
    fail(line, `segment U says movement ${u.movement}, its segment T ${item.movement}`);
    ok = false;
  }
  if (!ok) return false;
  Object.assign(item, { chargesCents: charges, paidCents: paid, occurrenceDate: occurrence, creditDate: credit });
  return true;
}
