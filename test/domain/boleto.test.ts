import { describe, expect, it } from 'vitest';
import {
  MAX_BOLETO_AMOUNT_CENTS,
  barcodeDv,
  barcodeToLine,
  buildBarcode,
  dueDateFactor,
  factorToDate,
  formatLine,
  lineToBarcode,
  mod10Dv,
  mod11Dv,
  parseBarcode,
} from '../../src/domain/boleto.js';

const VECTORS = [
  // Caixa, DV 9, factor 8981, R$ 214.03
  ['10499898100000214032006561000100040099726390', '10492006506100010004200997263900989810000021403'],
  // Banco do Brasil
  ['00196758600001026560000001149718606852452211', '00190000090114971860168524522114675860000102656'],
  // remainder 0, so the DV is 1
  ['00191758600001026580000001149718606852452211', '00190000090114971860168524522114175860000102658'],
] as const;

describe('reference vectors', () => {
  it('barcode -> digitable line', () => {
    for (const [barcode, line] of VECTORS) expect(barcodeToLine(barcode)).toBe(line);
  });

  it('digitable line -> barcode, plain and formatted', () => {
    for (const [barcode, line] of VECTORS) {
      expect(lineToBarcode(line)).toBe(barcode);
      expect(lineToBarcode(formatLine(line))).toBe(barcode);
    }
  });

  it('parses the Caixa barcode', () => {
    expect(parseBarcode(VECTORS[0][0])).toEqual({
      bankCode: '104',
      currency: '9',
      dv: 9,
      factor: 8981,
      amountCents: 21_403n,
      freeField: '2006561000100040099726390',
    });
    expect(parseBarcode(VECTORS[2][0])).toMatchObject({ bankCode: '001', dv: 1, factor: 7586, amountCents: 102_658n });
  });

  it('rebuilds each barcode from its parts', () => {
    for (const [barcode] of VECTORS) {
      const p = parseBarcode(barcode)!;
      const dueDate = factorToDate(p.factor, '2020-01-01');
      expect(buildBarcode({ bankCode: p.bankCode, dueDate, amountCents: p.amountCents, freeField: p.freeField })).toBe(barcode);
    }
  });

  it('formats the line in the printed groups', () => {
    expect(formatLine(VECTORS[0][1])).toBe('10492.00650 61000.100042 00997.263900 9 89810000021403');
  });
});

describe('check digits', () => {
  it('general DV uses 1 for remainders giving 0, 10 or 11', () => {
    const [barcode] = VECTORS[2];
    expect(barcodeDv(barcode.slice(0, 4) + barcode.slice(5))).toBe(1);
    expect(barcodeDv(VECTORS[0][0].slice(0, 4) + VECTORS[0][0].slice(5))).toBe(9);
    expect(barcodeDv(VECTORS[1][0].slice(0, 4) + VECTORS[1][0].slice(5))).toBe(6);
  });

  it('mod 10 of the line fields', () => {
    expect(mod10Dv('104920065')).toBe(0);
    expect(mod10Dv('6100010004')).toBe(2);
    expect(mod10Dv('0099726390')).toBe(0);
    expect(mod10Dv('001900000')).toBe(9);
  });

  it('mod 11 with 10 and 11 -> 0 (our number, bank code digit): the published bank code digits', () => {
    expect(['001', '237', '341', '104', '033'].map(mod11Dv)).toEqual([9, 2, 7, 0, 7]);
  });

  it('rejects wrong DVs and malformed input', () => {
    expect(parseBarcode('10491898100000214032006561000100040099726390')).toBeNull();
    expect(parseBarcode('1049989810000021403200656100010004009972639')).toBeNull();
    expect(() => barcodeToLine('10491898100000214032006561000100040099726390')).toThrow(RangeError);
    // A typo in field 2 breaks its mod 10 DV.
    expect(lineToBarcode('10492006506100010005200997263900989810000021403')).toBeNull();
    // Field DVs fine but the general DV (field 4) wrong.
    expect(lineToBarcode('10492006506100010004200997263900889810000021403')).toBeNull();
    expect(lineToBarcode('1049200650610001000420099726390098981000002140')).toBeNull();
    expect(lineToBarcode('1049200650610001000420099726390098981000002140X')).toBeNull();
  });
});

describe('due-date factor', () => {
  it('counts days from 1997-10-07 and restarts at 1000 on 2025-02-22', () => {
    expect(dueDateFactor('1997-10-08')).toBe(1);
    expect(dueDateFactor('2000-07-03')).toBe(1000);
    expect(dueDateFactor('2022-05-10')).toBe(8981);
    expect(dueDateFactor('2025-02-20')).toBe(9998);
    expect(dueDateFactor('2025-02-21')).toBe(9999);
    expect(dueDateFactor('2025-02-22')).toBe(1000);
    expect(dueDateFactor('2025-02-23')).toBe(1001);
    expect(dueDateFactor('2026-01-01')).toBe(1313);
    expect(dueDateFactor('2026-11-23')).toBe(1639); // 639 days after the restart
    expect(dueDateFactor('2049-10-13')).toBe(9999);
    expect(dueDateFactor('2049-10-14')).toBe(1000);
    expect(() => dueDateFactor('1997-10-07')).toThrow(RangeError);
  });

  it('decodes to the candidate closest to today', () => {
    expect(factorToDate(8981, '2026-01-01')).toBe('2022-05-10');
    expect(factorToDate(8981, '2022-06-01')).toBe('2022-05-10'); // the Caixa vector, 1018 days before the restart
    expect(factorToDate(1000, '2026-01-01')).toBe('2025-02-22');
    expect(factorToDate(1000, '2001-01-01')).toBe('2000-07-03');
    expect(factorToDate(1313, '2026-01-01')).toBe('2026-01-01');
    expect(factorToDate(9999, '2025-03-01')).toBe('2025-02-21');
    expect(factorToDate(9999, '2049-01-01')).toBe('2049-10-13');
    expect(factorToDate(1000, '2049-06-01')).toBe('2049-10-14');
    expect(factorToDate(1, '2026-01-01')).toBe('1997-10-08');
    // 2012-10-28 is 4500 days from both candidates of 1000: the later one wins.
    expect(factorToDate(1000, '2012-10-28')).toBe('2025-02-22');
    expect(factorToDate(1000, '2012-10-27')).toBe('2000-07-03');
    expect(factorToDate(0, '2026-01-01')).toBeNull();
    expect(() => factorToDate(10_000, '2026-01-01')).toThrow(RangeError);
  });

  it('round-trips dates near today', () => {
    for (const date of ['2025-02-21', '2025-02-22', '2026-02-16', '2030-12-31', '2020-06-15']) {
      expect(factorToDate(dueDateFactor(date), '2026-01-01')).toBe(date);
    }
  });
});

describe('buildBarcode', () => {
  it('builds a slip whose line round-trips', () => {
    const barcode = buildBarcode({ bankCode: '341', dueDate: '2026-02-18', amountCents: 15_000, freeField: '1'.repeat(25) });
    expect(barcode).toHaveLength(44);
    expect(barcode.slice(5, 19)).toBe('13610000015000');
    expect(parseBarcode(barcode)).not.toBeNull();
    expect(lineToBarcode(barcodeToLine(barcode))).toBe(barcode);
  });

  it('writes factor 0000 without due date and checks its inputs', () => {
    const barcode = buildBarcode({ bankCode: '001', dueDate: null, amountCents: 0n, freeField: '0'.repeat(25) });
    expect(barcode.slice(5, 19)).toBe('00000000000000');
    expect(() => buildBarcode({ bankCode: '01', dueDate: null, amountCents: 1, freeField: '0'.repeat(25) })).toThrow(RangeError);
    expect(() => buildBarcode({ bankCode: '001', dueDate: null, amountCents: 1, freeField: '0'.repeat(24) })).toThrow(RangeError);
    expect(() => buildBarcode({ bankCode: '001', dueDate: null, amountCents: MAX_BOLETO_AMOUNT_CENTS + 1n, freeField: '0'.repeat(25) })).toThrow(RangeError);
    expect(buildBarcode({ bankCode: '001', dueDate: null, amountCents: MAX_BOLETO_AMOUNT_CENTS, freeField: '0'.repeat(25) }).slice(9, 19)).toBe('9999999999');
  });
});
