import { describe, expect, it } from 'vitest';
import { barcodeDv, barcodeToLine, buildBarcode, dueDateFactor, factorToDate, formatLine, lineToBarcode, parseBarcode } from '../../src/domain/boleto.js';
import { addDays, daysBetween } from '../../src/domain/calendar.js';
import { decodeItf, encodeItf } from '../../src/domain/itf.js';
import { buildFreeField, mod11Dv, ourNumberOf, parseFreeField } from '../../src/modules/bankslips/free-field.js';
import { registrationOf } from '../../src/modules/bankslips/registration.js';

/** brazil-standards.md, "Boleto" vectors: barcode <-> digitable line. */
const VECTORS = [
  { barcode: '10499898100000214032006561000100040099726390', line: '10492006506100010004200997263900989810000021403', dv: 9 },
  { barcode: '00196758600001026560000001149718606852452211', line: '00190000090114971860168524522114675860000102656', dv: 6 },
  // remainder 0: 11 - 0 = 11, so the DV is 1 (never 0)
  { barcode: '00191758600001026580000001149718606852452211', line: '00190000090114971860168524522114175860000102658', dv: 1 },
];

/** A small deterministic PRNG, so a failing property case can be replayed. */
function prng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('FEBRABAN reference vectors', () => {
  it('general DV of each vector, the remainder-0 case included', () => {
    for (const v of VECTORS) expect(barcodeDv(v.barcode.slice(0, 4) + v.barcode.slice(5))).toBe(v.dv);
  });

  it('barcode -> digitable line and back, plain and formatted', () => {
    for (const v of VECTORS) {
      expect(barcodeToLine(v.barcode)).toBe(v.line);
      expect(lineToBarcode(v.line)).toBe(v.barcode);
      expect(lineToBarcode(formatLine(v.line))).toBe(v.barcode);
    }
  });

  it('due-date factor before and after the 2025-02-22 rollover', () => {
    expect(dueDateFactor('2000-07-03')).toBe(1000);
    expect(dueDateFactor('2025-02-20')).toBe(9998);
    expect(dueDateFactor('2025-02-21')).toBe(9999);
    expect(dueDateFactor('2025-02-22')).toBe(1000);
    expect(dueDateFactor('2025-02-23')).toBe(1001);
    expect(dueDateFactor('2026-11-23')).toBe(1000 + daysBetween('2025-02-22', '2026-11-23'));
    // The Caixa vector's factor 8981 is 1018 days before the rollover.
    expect(factorToDate(8981, '2022-06-01')).toBe(addDays('2025-02-21', 8981 - 9999));
    expect(factorToDate(1000, '2026-01-01')).toBe('2025-02-22');
    expect(factorToDate(1000, '2001-01-01')).toBe('2000-07-03');
    expect(factorToDate(9999, '2025-03-01')).toBe('2025-02-21');
  });
});

describe('this gateway\'s free field and our number', () => {
  it('mod 11 with 10 and 11 -> 0: the published bank code digits', () => {
    expect(['001', '237', '341', '104', '033'].map(mod11Dv)).toEqual([9, 2, 7, 0, 7]);
  });

  it('our number = 14-digit sequence + its DV; free field = 10-digit account + our number', () => {
    expect(ourNumberOf(1)).toBe('000000000000019'); // 1 x 2 = 2, 11 - 2 = 9
    expect(ourNumberOf(2)).toBe('000000000000027');
    expect(buildFreeField(100001, 1)).toBe('0000100001000000000000019');
    expect(parseFreeField('0000100001000000000000019')).toEqual({ accountNumber: 100001, ourNumber: '000000000000019' });
    expect(parseFreeField('0000100001000000000000018')).toBeNull();
    expect(() => buildFreeField(12_345_678_901, 1)).toThrow(RangeError);
    expect(() => ourNumberOf(10 ** 14)).toThrow(RangeError);
  });
});

describe('properties', () => {
  const random = prng(20261123);
  const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));

  it('any value and due date: barcode -> line -> barcode, and every part reads back', () => {
    for (let i = 0; i < 5000; i++) {
      const issue = addDays('2025-02-22', int(0, 3650));
      const dueDate = addDays(issue, int(0, 3650));
      // Amounts of every length, up to the 10-digit maximum.
      const cents = BigInt(Math.floor(10 ** (random() * 10))) + BigInt(int(0, 99));
      const amount = cents > 9_999_999_999n ? 9_999_999_999n : cents;
      const account = int(100001, 9_999_999_999);
      const seq = int(1, 2 ** 40);
      const bankCode = String(int(0, 999)).padStart(3, '0');
      const barcode = buildBarcode({ bankCode, dueDate, amountCents: amount, freeField: buildFreeField(account, seq) });
      const line = barcodeToLine(barcode);
      expect(line).toMatch(/^\d{47}$/);
      expect(lineToBarcode(line)).toBe(barcode);
      expect(lineToBarcode(formatLine(line))).toBe(barcode);
      const parsed = parseBarcode(barcode)!;
      expect(parsed).toMatchObject({ bankCode, currency: '9', amountCents: amount, factor: dueDateFactor(dueDate) });
      expect(parsed.dv).not.toBe(0);
      expect(factorToDate(parsed.factor, issue)).toBe(dueDate);
      expect(parseFreeField(parsed.freeField)).toEqual({ accountNumber: account, ourNumber: ourNumberOf(seq) });
    }
  });

  it('a mistyped digit in the first three fields of the line is always caught', () => {
    for (let i = 0; i < 300; i++) {
      const barcode = buildBarcode({ bankCode: '001', dueDate: addDays('2026-01-01', int(0, 2000)), amountCents: int(1, 10 ** 9), freeField: buildFreeField(int(100001, 999999), int(1, 10 ** 9)) });
      const line = barcodeToLine(barcode);
      const at = int(0, 31);
      const typo = line.slice(0, at) + String((Number(line[at]) + int(1, 9)) % 10) + line.slice(at + 1);
      expect(lineToBarcode(typo), `${line} -> ${typo}`).toBeNull();
    }
  });

  it('interleaved 2 of 5: any 44 digits encode to bars that decode back to them', () => {
    for (let i = 0; i < 1000; i++) {
      const digits = Array.from({ length: 44 }, () => String(int(0, 9))).join('');
      const modules = encodeItf(digits);
      // Start 4 + 22 pairs x (4 wide x 3 + 6 narrow) + stop (3 + 1 + 1) = 405 modules, ~103 mm at 0.254 mm.
      expect(modules).toHaveLength(405);
      expect(decodeItf(modules)).toBe(digits);
      expect(decodeItf(`0000000000${modules}0000000000`)).toBe(digits); // quiet zones
      // Every module doubled (a larger print) still decodes.
      expect(decodeItf(encodeItf(digits, 3).replace(/1/g, '11').replace(/0/g, '00'))).toBe(digits);
    }
  });
});

describe('interleaved 2 of 5', () => {
  it('a hand-encoded pair: start, 1 in bars (WNNNW) interleaved with 2 in spaces (NWNNW), stop', () => {
    // bar W, space N, bar N, space W, bar N, space N, bar N, space N, bar W, space W
    expect(encodeItf('12')).toBe('1010' + '111' + '0' + '1' + '000' + '1' + '0' + '1' + '0' + '111' + '000' + '11101');
  });

  it('rejects odd lengths and non-digits; refuses corrupted patterns', () => {
    expect(() => encodeItf('123')).toThrow(RangeError);
    expect(() => encodeItf('1a')).toThrow(RangeError);
    const modules = encodeItf('0123456789');
    expect(decodeItf(modules.slice(1))).toBeNull(); // start damaged
    expect(decodeItf(modules.slice(0, -1))).toBeNull(); // stop damaged
    expect(decodeItf(modules.replace('1110', '1010'))).toBeNull(); // a wide bar printed narrow
  });

  it('the registration barcode of a slip is what the PDF draws', () => {
    const reg = registrationOf({ seq: 7, account_number: 100001, due_date: '2026-12-10', value: 123456, pix: 0 }, { name: 'Loja', document_number: '11222333000181' }, '001');
    expect(decodeItf(encodeItf(reg.bar_code))).toBe(reg.bar_code);
    expect(reg.digitable_line).toBe(barcodeToLine(reg.bar_code));
  });
});
