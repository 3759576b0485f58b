import { describe, expect, it } from 'vitest';
import { cnabDate, cnabText, formatRecord, layoutGaps, parseCnabCents, parseCnabDate, readRecord, type Layout } from '../../src/domain/cnab240.js';
import * as layouts from '../../src/domain/cnab240-layout.js';
import { parseReturnFile } from '../../src/domain/cnab240-return.js';
import { returnFile } from '../bankslips/cnab-files.js';

const LAYOUTS = Object.entries(layouts).filter(([, v]) => Array.isArray(v)) as [string, Layout][];

describe('CNAB 240 records', () => {
  it('every layout covers positions 1-240 exactly once, in order', () => {
    expect(LAYOUTS.map(([name]) => name).sort()).toEqual(['BATCH_HEADER', 'BATCH_TRAILER', 'FILE_HEADER', 'FILE_TRAILER', 'SEGMENT_P', 'SEGMENT_Q', 'SEGMENT_R', 'SEGMENT_T', 'SEGMENT_U']);
    for (const [name, layout] of LAYOUTS) expect(layoutGaps(layout), name).toEqual([]);
  });

  it('the gap check finds a gap, an overlap and a short layout', () => {
    expect(layoutGaps([['a', 1, 10, 'num'], ['b', 12, 240, 'alpha']])).toEqual(['b starts at 12, expected 11']);
    expect(layoutGaps([['a', 1, 10, 'num'], ['b', 10, 240, 'alpha']])).toEqual(['b starts at 10, expected 11']);
    expect(layoutGaps([['a', 1, 10, 'num']])).toEqual(['the layout ends at 10, not 240']);
  });

  it('numbers are zero-padded on the left, text upper-case ASCII blank-padded on the right, constants win', () => {
    const line = formatRecord(layouts.FILE_TRAILER, { bank: '1', batches: 1, records: 12n, batch: '1234' });
    expect(line).toHaveLength(240);
    expect(line.slice(0, 29)).toBe('00199999         000001000012');
    const q = formatRecord(layouts.SEGMENT_Q, { payerName: 'Ana Lúcia Çâmara', payerCity: 'Florianópolis do Sul e Norte' });
    expect(q.slice(33, 73)).toBe('ANA LUCIA CAMARA'.padEnd(40, ' '));
    expect(q.slice(136, 151)).toBe('FLORIANOPOLIS D'); // cut to the field
    expect(readRecord(layouts.SEGMENT_Q, q).payerName).toBe('ANA LUCIA CAMARA');
  });

  it('a number that does not fit, or is not a number, is an error, never a truncated instruction', () => {
    expect(() => formatRecord(layouts.SEGMENT_P, { value: 10n ** 15n })).toThrow(RangeError);
    expect(() => formatRecord(layouts.SEGMENT_P, { value: '12.50' })).toThrow(/value \(86-100\)/);
  });

  it('dates and amounts', () => {
    expect(cnabDate('2026-03-09')).toBe('09032026');
    expect(cnabDate(null)).toBe('');
    expect(parseCnabDate('09032026')).toBe('2026-03-09');
    expect(parseCnabDate('00000000')).toBeNull();
    expect(parseCnabDate('30022026')).toBeNull();
    expect(parseCnabDate('3102202A')).toBeNull();
    expect(parseCnabCents('000000000012345')).toBe(12345n);
    expect(parseCnabCents('0000000000123 5')).toBeNull();
    expect(cnabText('Pão\tde açúcar')).toBe('PAO DE ACUCAR');
  });
});

describe('CNAB 240 return files', () => {
  const paid = { movement: '06', ourNumber: '000000000000017', dueDate: '2026-03-10', valueCents: 15075n, chargesCents: 125n, paidCents: 15200n, paymentDate: '2026-03-12', creditDate: '2026-03-13', reasons: '0400' };

  it('reads T and U together: movement, our number, value, reasons, amounts and dates; CRLF or LF, with or without a final line break', () => {
    for (const text of [returnFile([paid]), returnFile([paid]).replace(/\r\n/g, '\n'), returnFile([paid]).replace(/\r\n$/, '')]) {
      const parsed = parseReturnFile(text);
      expect(parsed.errors).toEqual([]);
      expect(parsed.bankCode).toBe('001');
      expect(parsed.items).toEqual([
        { line: 3, movement: '06', ourNumber: '000000000000017', dueDate: '2026-03-10', valueCents: 15075n, reasons: ['04'], chargesCents: 125n, paidCents: 15200n, occurrenceDate: '2026-03-12', creditDate: '2026-03-13' },
      ]);
    }
  });

  it('names every structural problem with its line', () => {
    const lines = returnFile([paid, paid]).split('\r\n').slice(0, -1);
    const swapped = [lines[0], lines[1], lines[3], lines[2], lines[4], lines[5], lines[6], lines[7]];
    expect(parseReturnFile(swapped.join('\n')).errors.map((e) => e.line)).toEqual([3, 4]);
    const noTrailer = lines.slice(0, -1).join('\n');
    expect(parseReturnFile(noTrailer).errors).toContainEqual({ line: 7, description: 'the file does not end with a file trailer (record type 9)' });
    const badType = [...lines];
    badType[2] = `${badType[2].slice(0, 7)}7${badType[2].slice(8)}`;
    expect(parseReturnFile(badType.join('\n')).errors.map((e) => e.description)).toContain('unknown record type "7" at position 8');
    const badDate = [...lines];
    badDate[3] = `${badDate[3].slice(0, 137)}31022026${badDate[3].slice(145)}`;
    expect(parseReturnFile(badDate.join('\n')).errors).toEqual([{ line: 4, description: 'occurrence date (positions 138-145) is not a date DDMMAAAA: "31022026"' }]);
    expect(parseReturnFile('').errors).toContainEqual({ line: 1, description: 'record has 0 characters; CNAB 240 records have 240' });
  });
});
