import { describe, expect, it } from 'vitest';
import { barcodeToLine, buildBarcode, dueDateFactor, factorToDate, formatLine, lineToBarcode, parseBarcode } from '../../src/domain/boleto.js';
import { addDays } from '../../src/domain/calendar.js';
import { decodeItf, encodeItf } from '../../src/domain/interleaved-2of5.js';
import { buildFreeField, ourNumberOf, parseFreeField } from '../../src/modules/bankslips/free-field.js';
import { registrationOf } from '../../src/modules/bankslips/registration.js';

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

// The FEBRABAN vectors, the due-date factor and mod 11 itself are tested in test/domain/boleto.test.ts.
describe('this gateway\'s free field and our number', () => {
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
    const reg = registrationOf({ seq: 7, account_number: 100001, due_date: '2026-12-10', value: 123456, pix: 0 }, { name: 'Loja', document_number: '11222333000181', city: 'Curitiba' }, '001');
    expect(decodeItf(encodeItf(reg.bar_code))).toBe(reg.bar_code);
    expect(reg.digitable_line).toBe(barcodeToLine(reg.bar_code));
  });
});
