/**
 * Return files for tests, written independently of src/domain/cnab240-layout.ts: each record is
 * 240 blanks with values put at FEBRABAN's positions (1-based, inclusive) as the manual's tables
 * print them, so a wrong position in the gateway's layout fails the tests instead of agreeing
 * with itself.
 */
type Put = [start: number, end: number, value: string | number | bigint, kind?: 'n' | 'a'];

export function record(puts: Put[]): string {
  const chars = Array.from({ length: 240 }, () => ' ');
  for (const [start, end, value, kind = 'n'] of puts) {
    const size = end - start + 1;
    const text = kind === 'n' ? String(value).padStart(size, '0') : String(value).padEnd(size, ' ');
    if (text.length !== size) throw new Error(`test record: ${value} does not fit ${start}-${end}`);
    for (let i = 0; i < size; i++) chars[start - 1 + i] = text[i];
  }
  return chars.join('');
}

/** YYYY-MM-DD -> DDMMAAAA. */
export const ddmmyyyy = (date: string) => `${date.slice(8, 10)}${date.slice(5, 7)}${date.slice(0, 4)}`;

export interface ReturnRecord {
  movement: string;
  ourNumber: string;
  dueDate: string;
  valueCents: bigint | number;
  reasons?: string;
  chargesCents?: bigint | number;
  paidCents?: bigint | number;
  paymentDate?: string;
  creditDate?: string;
}

export function segmentT(seq: number, r: ReturnRecord, bank = '001'): string {
  return record([
    [1, 3, bank],
    [4, 7, 1],
    [8, 8, 3],
    [9, 13, seq],
    [14, 14, 'T', 'a'],
    [16, 17, r.movement],
    [38, 57, r.ourNumber, 'a'],
    [74, 81, ddmmyyyy(r.dueDate)],
    [82, 96, r.valueCents],
    [214, 223, r.reasons ?? '', 'a'],
  ]);
}

export function segmentU(seq: number, r: ReturnRecord, bank = '001'): string {
  return record([
    [1, 3, bank],
    [4, 7, 1],
    [8, 8, 3],
    [9, 13, seq],
    [14, 14, 'U', 'a'],
    [16, 17, r.movement],
    [18, 32, r.chargesCents ?? 0],
    [78, 92, r.paidCents ?? 0],
    [93, 107, r.paidCents ?? 0],
    [138, 145, r.paymentDate ? ddmmyyyy(r.paymentDate) : 0],
    [146, 153, r.creditDate ? ddmmyyyy(r.creditDate) : 0],
  ]);
}

/** A whole return file: header, one batch of T/U pairs, trailers with the right counts (CRLF). */
export function returnFile(records: ReturnRecord[], options: { bank?: string; batchCount?: number; fileCount?: number } = {}): string {
  const bank = options.bank ?? '001';
  const details = records.flatMap((r, i) => [segmentT(2 * i + 1, r, bank), segmentU(2 * i + 2, r, bank)]);
  const lines = [
    record([[1, 3, bank], [4, 7, 0], [8, 8, 0], [18, 18, 2], [19, 32, '11222333000181'], [143, 143, 2], [144, 151, '01012026']]),
    record([[1, 3, bank], [4, 7, 1], [8, 8, 1], [9, 9, 'T', 'a'], [10, 11, 1]]),
    ...details,
    record([[1, 3, bank], [4, 7, 1], [8, 8, 5], [18, 23, options.batchCount ?? details.length + 2]]),
  ];
  lines.push(record([[1, 3, bank], [4, 7, 9999], [8, 8, 9], [18, 23, 1], [24, 29, options.fileCount ?? lines.length + 1]]));
  return `${lines.join('\r\n')}\r\n`;
}

/** Characters `start`-`end` (1-based, inclusive) of a record. */
export const at = (line: string, start: number, end: number) => line.slice(start - 1, end);
