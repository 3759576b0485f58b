import { describe, expect, it } from 'vitest';
import { formatRecord, layoutGaps, readRecord, type Layout } from '../../src/domain/cnab240.js';
import { BANCO_DO_BRASIL, bankLayout, FEBRABAN_GENERIC, overlay, SUPPORTED_BANKS } from '../../src/domain/cnab240-banks.js';
import * as febraban from '../../src/domain/cnab240-layout.js';

const RECORDS = ['fileHeader', 'batchHeader', 'segmentP', 'segmentQ', 'segmentR', 'segmentT', 'segmentU', 'batchTrailer', 'fileTrailer'] as const;

/** Characters `start`-`end` (1-based, inclusive) of a record. */
const at = (line: string, start: number, end: number) => line.slice(start - 1, end);
const field = (layout: Layout, name: string) => layout.find(([n]) => n === name);

/**
 * Banco do Brasil's own fields, typed from its manual ("Particularidades BB, Leiaute CNAB 240",
 * header de arquivo 07.0 BB1-BB5, header de lote 11.1 BB1-BB5), not from the gateway's layout:
 * [start, end, numeric?, content].
 */
const BB_FILE_HEADER: [number, number, boolean][] = [
  [33, 41, true], // BB1 número do convênio de cobrança, zeros à esquerda
  [42, 45, true], // BB2 cobrança cedente: 0014
  [46, 47, true], // BB3 número da carteira de cobrança
  [48, 50, true], // BB4 variação da carteira
  [51, 52, false], // BB5 reservado: brancos
  [212, 222, false], // uso exclusivo FEBRABAN
  [223, 225, false], // identificação cobrança sem papel
  [226, 228, true], // uso exclusivo das VANs
  [229, 230, true], // tipo de serviço
  [231, 240, true], // ocorrências
];
const BB_BATCH_HEADER: [number, number, boolean][] = [
  [34, 42, true],
  [43, 46, true],
  [47, 48, true],
  [49, 51, true],
  [52, 53, false], // brancos, or TS for a test remittance
];

describe('bank layouts', () => {
  it('every record of every layout covers positions 1-240 exactly once', () => {
    for (const layout of [FEBRABAN_GENERIC, BANCO_DO_BRASIL]) {
      for (const record of RECORDS) expect(layoutGaps(layout[record]), `${layout.code} ${record}`).toEqual([]);
    }
  });

  it('Banco do Brasil is 001; any other bank code is written in the generic layout', () => {
    expect(SUPPORTED_BANKS).toEqual(['001']);
    expect(bankLayout('001')).toBe(BANCO_DO_BRASIL);
    expect(bankLayout('237')).toBe(FEBRABAN_GENERIC);
  });

  it("Banco do Brasil's header fields sit where its manual puts them, field by field, and nowhere else differs from FEBRABAN", () => {
    const check = (layout: Layout, table: [number, number, boolean][]) => {
      for (const [start, end, numeric] of table) {
        const spec = layout.find(([, s, e]) => s === start && e === end);
        expect(spec, `${start}-${end}`).toBeDefined();
        expect(spec![3], `${start}-${end}`).toBe(numeric ? 'num' : 'alpha');
      }
    };
    check(BANCO_DO_BRASIL.fileHeader, BB_FILE_HEADER);
    check(BANCO_DO_BRASIL.batchHeader, BB_BATCH_HEADER);
    // Elsewhere every field is FEBRABAN's.
    const outside = (layout: Layout, from: number, to: number, from2 = 241) => layout.filter(([, s, e]) => (e < from || s > to) && e < from2);
    expect(outside(BANCO_DO_BRASIL.fileHeader, 33, 52, 212)).toEqual(outside(febraban.FILE_HEADER, 33, 52, 212));
    expect(outside(BANCO_DO_BRASIL.batchHeader, 34, 53)).toEqual(outside(febraban.BATCH_HEADER, 34, 53));
    for (const record of ['segmentP', 'segmentQ', 'segmentR', 'segmentT', 'segmentU', 'batchTrailer', 'fileTrailer'] as const) {
      expect(BANCO_DO_BRASIL[record], record).toBe(febraban[({ segmentP: 'SEGMENT_P', segmentQ: 'SEGMENT_Q', segmentR: 'SEGMENT_R', segmentT: 'SEGMENT_T', segmentU: 'SEGMENT_U', batchTrailer: 'BATCH_TRAILER', fileTrailer: 'FILE_TRAILER' } as const)[record]]);
    }
    expect(field(BANCO_DO_BRASIL.segmentP, 'wallet')).toEqual(['wallet', 58, 58, 'num']);
  });

  it("Banco do Brasil's headers written: convênio zero-padded, 0014 whatever the values say, carteira, variação, blanks", () => {
    const values = { agreement: '1234567', bbCollection: '9999', wallet: '17', walletVariation: '19', bbReserved: '' };
    const header = formatRecord(BANCO_DO_BRASIL.fileHeader, values);
    expect(at(header, 33, 52)).toBe('001234567' + '0014' + '17' + '019' + '  ');
    expect(at(header, 212, 240)).toBe(' '.repeat(14) + '0'.repeat(15));
    const batch = formatRecord(BANCO_DO_BRASIL.batchHeader, values);
    expect(at(batch, 34, 53)).toBe('001234567' + '0014' + '17' + '019' + '  ');
    expect(readRecord(BANCO_DO_BRASIL.fileHeader, header)).toMatchObject({ agreement: '001234567', wallet: '17', walletVariation: '019' });
    // The generic layout keeps FEBRABAN's 20-position convênio, text on the left.
    expect(at(formatRecord(FEBRABAN_GENERIC.fileHeader, values), 33, 52)).toBe('1234567'.padEnd(20, ' '));
  });

  it('segment P position 58: Banco do Brasil by carteira (11/12 simples 1, 17 simples 7, 31 vinculada 2, 51 descontada 4); FEBRABAN its own code', () => {
    expect(['11', '12', '17', '31', '51'].map(BANCO_DO_BRASIL.walletCode)).toEqual(['1', '1', '7', '2', '4']);
    expect(FEBRABAN_GENERIC.walletCode('3')).toBe('3');
  });

  it('the wallet, variation and agreement are checked against the layout', () => {
    expect(BANCO_DO_BRASIL.checkWallet('17', '19')).toBeNull();
    expect(BANCO_DO_BRASIL.checkWallet('1', '19')).toMatch(/Banco do Brasil carteira/);
    expect(BANCO_DO_BRASIL.checkWallet('17', '')).toMatch(/VARIATION/);
    expect(BANCO_DO_BRASIL.checkAgreement('123456789')).toBeNull();
    expect(BANCO_DO_BRASIL.checkAgreement('12345678A')).toMatch(/9 digits/);
    expect(FEBRABAN_GENERIC.checkWallet('1', '')).toBeNull();
    expect(FEBRABAN_GENERIC.checkWallet('17', '')).toMatch(/1 to 5/);
    expect(FEBRABAN_GENERIC.checkAgreement('A'.repeat(21))).toMatch(/20 characters/);
  });

  it('overlay replaces every field a new one overlaps and keeps the order', () => {
    const base: Layout = [['a', 1, 10, 'num'], ['b', 11, 30, 'alpha'], ['c', 31, 240, 'alpha']];
    const result = overlay(base, [['b2', 21, 30, 'num'], ['b1', 11, 20, 'num']]);
    expect(result.map(([n]) => n)).toEqual(['a', 'b1', 'b2', 'c']);
    expect(layoutGaps(result)).toEqual([]);
  });

  it('inscription numbers (CPF/CNPJ) are doc fields: the alphanumeric CNPJ right-aligned with zeros, a numeric one as before; nothing else fits', () => {
    for (const [layout, name, start, end] of [
      [febraban.FILE_HEADER, 'companyDocument', 19, 32],
      [febraban.BATCH_HEADER, 'companyDocument', 19, 33],
      [febraban.SEGMENT_Q, 'payerDocument', 19, 33],
      [febraban.SEGMENT_Q, 'guarantorDocument', 155, 169],
      [febraban.SEGMENT_T, 'payerDocument', 134, 148],
    ] as const) {
      expect(field(layout, name), name).toEqual([name, start, end, 'doc']);
    }
    const q = formatRecord(febraban.SEGMENT_Q, { payerDocument: '12ABC34501DE35', guarantorDocument: '52998224725' });
    expect(at(q, 19, 33)).toBe('012ABC34501DE35');
    expect(at(q, 155, 169)).toBe('000052998224725');
    expect(readRecord(febraban.SEGMENT_Q, q).payerDocument).toBe('012ABC34501DE35');
    expect(() => formatRecord(febraban.SEGMENT_Q, { payerDocument: '12abc34501de35' })).toThrow(/payerDocument \(19-33\)/);
    expect(() => formatRecord(febraban.SEGMENT_Q, { payerDocument: '1'.repeat(16) })).toThrow(RangeError);
  });
});
