/**
 * CNAB 240 records as declared field positions (FEBRABAN's layout, src/domain/cnab240-layout.ts):
 * one `format` that writes a 240-character record from named values and one `read` that reads it
 * back. Positions are 1-based and inclusive, as FEBRABAN's tables print them, so a reviewer
 * checks a declaration against the manual line by line.
 *
 * Why not a library: the npm packages for CNAB (nodenab, @banco-br/nodejs-cnab) carry per-bank
 * YAML layouts, floats for amounts and no per-line error report (docs/architecture.md, "Small pieces of our own").
 */

export const RECORD_LENGTH = 240;

/**
 * `num`: digits, zero-padded on the left. `alpha`: upper-case ASCII, blank-padded on the right.
 * `doc`: a CPF/CNPJ inscription number as FEBRABAN's adaptation for the alphanumeric CNPJ writes
 * it: digits and upper-case letters, right-aligned and zero-padded on the left, so a numeric
 * document is written exactly as the old numeric field did (docs/connectors.md, "Bank slips with the bank").
 */
export type FieldKind = 'num' | 'alpha' | 'doc';

/** [name, start, end, kind, constant?]: a constant is written whatever the values say. */
export type FieldSpec = readonly [name: string, start: number, end: number, kind: FieldKind, constant?: string];

export type Layout = readonly FieldSpec[];

/** Checks that a layout covers positions 1 to 240 exactly once, in order (the layouts' unit test runs it). */
export function layoutGaps(layout: Layout): string[] {
  const problems: string[] = [];
  let next = 1;
  for (const [name, start, end] of layout) {
    if (start !== next) problems.push(`${name} starts at ${start}, expected ${next}`);
    if (end < start) problems.push(`${name} ends before it starts`);
    next = end + 1;
  }
  if (next !== RECORD_LENGTH + 1) problems.push(`the layout ends at ${next - 1}, not ${RECORD_LENGTH}`);
  return problems;
}

/** Upper-case ASCII: banks' files are read as plain text, so accents are dropped (São -> SAO). */
export function cnabText(value: string): string {
  return value
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]/g, ' ')
    .toUpperCase();
}

/**
 * One record. Numeric values that do not fit their field throw RangeError (a truncated amount
 * or date would be a wrong instruction to the bank); text is cut to its field (names and
 * addresses are longer than FEBRABAN's boxes, and the bank prints only what fits).
 */
export function formatRecord(layout: Layout, values: Record<string, string | number | bigint | undefined>): string {
  let line = '';
  for (const [name, start, end, kind, constant] of layout) {
    const size = end - start + 1;
    const raw = constant ?? values[name];
    if (kind === 'num' || kind === 'doc') {
      const digits = raw === undefined ? '' : String(raw);
      const allowed = kind === 'num' ? /^\d*$/ : /^[0-9A-Z]*$/;
      if (!allowed.test(digits) || digits.length > size) throw new RangeError(`CNAB field ${name} (${start}-${end}) cannot hold "${digits}"`);
      line += digits.padStart(size, '0');
    } else {
      line += cnabText(raw === undefined ? '' : String(raw)).slice(0, size).padEnd(size, ' ');
    }
  }
  if (line.length !== RECORD_LENGTH) throw new RangeError(`CNAB layout writes ${line.length} characters, not ${RECORD_LENGTH}`);
  return line;
}

/** A record's fields by name, as written (numbers as digit strings, text without its trailing blanks). */
export function readRecord(layout: Layout, line: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, start, end, kind] of layout) {
    const text = line.slice(start - 1, end);
    values[name] = kind === 'alpha' ? text.trimEnd() : text;
  }
  return values;
}

/** YYYY-MM-DD -> DDMMAAAA; '' for no date (written as zeros). */
export function cnabDate(date: string | null | undefined): string {
  if (!date) return '';
  const [y, m, d] = date.split('-');
  return `${d}${m}${y}`;
}

/** DDMMAAAA -> YYYY-MM-DD; null for zeros (no date) or anything that is not a real date. */
export function parseCnabDate(text: string): string | null {
  if (!/^\d{8}$/.test(text) || text === '00000000') return null;
  const iso = `${text.slice(4)}-${text.slice(2, 4)}-${text.slice(0, 2)}`;
  const parsed = new Date(`${iso}T00:00:00.000Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(iso) ? iso : null;
}

/** An amount field (implied 2 decimals) as cents; null when it is not all digits. */
export function parseCnabCents(text: string): bigint | null {
  return /^\d+$/.test(text) ? BigInt(text) : null;
}
