import { describe, expect, it } from 'vitest';
import {
  cvvLength,
  detectBrand,
  isValidCvv,
  luhnValid,
  maskConciliation,
  maskPan,
  panLengths,
  validateExpiry,
} from '../../src/domain/cards.js';

const SAMPLES = {
  visa: ['4111111111111111'],
  mastercard: ['5555555555554444'],
  amex: ['378282246310005'],
  elo: ['6362970000457013', '6363680000457017', '5090000000000000'],
  hipercard: ['6062825624254001', '6062820000000003'],
} as const;

describe('luhnValid', () => {
  it('accepts every reference sample', () => {
    for (const pans of Object.values(SAMPLES)) for (const pan of pans) expect(luhnValid(pan), pan).toBe(true);
  });

  it('rejects a changed digit and non-digits', () => {
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(luhnValid('5555555555554445')).toBe(false);
    expect(luhnValid('4111 1111 1111 1111')).toBe(false);
    expect(luhnValid('0')).toBe(false);
    expect(luhnValid('')).toBe(false);
  });
});

describe('detectBrand', () => {
  it('recognises the reference samples', () => {
    for (const [brand, pans] of Object.entries(SAMPLES)) {
      for (const pan of pans) expect(detectBrand(pan), pan).toBe(brand);
    }
  });

  it('tests Elo before Visa and Mastercard where the ranges overlap', () => {
    expect(detectBrand('4011780000000006')).toBe('elo');
    expect(detectBrand('4389350000000000')).toBe('elo');
    expect(detectBrand('4576320000000000')).toBe('elo');
    expect(detectBrand('5041750000000000')).toBe('elo');
    expect(detectBrand('5066990000000002')).toBe('elo');
    expect(detectBrand('5067780000000006')).toBe('elo');
    // Just outside Elo ranges: back to Visa, or no brand for 50xxxx (not Mastercard's 51-55).
    expect(detectBrand('4011770000000000')).toBe('visa');
    expect(detectBrand('4576330000000000')).toBe('visa');
    expect(detectBrand('5067790000000000')).toBeNull();
  });

  it('covers the edges of the Elo 65xxxx ranges', () => {
    for (const bin of ['650031', '650033', '650035', '650051', '650405', '650439', '650485', '650538',
      '650541', '650598', '650700', '650718', '650720', '650727', '650901', '650978', '651652',
      '651679', '655000', '655019', '655021', '655058', '627780', '636297', '636368', '636369']) {
      expect(detectBrand(`${bin}0000000000`), bin).toBe('elo');
    }
    for (const bin of ['650034', '650052', '650539', '650719', '655020', '655059', '636370']) {
      expect(detectBrand(`${bin}0000000000`), bin).toBeNull();
    }
  });

  it('knows Hipercard lengths per BIN', () => {
    expect(detectBrand('3841000000000000004')).toBe('hipercard');
    expect(detectBrand('3841400000000000000')).toBe('hipercard');
    expect(detectBrand('3841600000000000000')).toBe('hipercard');
    expect(detectBrand('384100000000000')).toBeNull();
    expect(detectBrand('6062820000000000000')).toBeNull();
  });

  it('checks Mastercard 2-series and 5-series bounds', () => {
    expect(detectBrand('2221000000000009')).toBe('mastercard');
    expect(detectBrand('2720990000000007')).toBe('mastercard');
    expect(detectBrand('2220990000000000')).toBeNull();
    expect(detectBrand('2721000000000000')).toBeNull();
    expect(detectBrand('5100000000000000')).toBe('mastercard');
    expect(detectBrand('5600000000000000')).toBeNull();
  });

  it('checks PAN length per brand', () => {
    expect(detectBrand('4111111111119')).toBe('visa');
    expect(detectBrand('4111111111111111110')).toBe('visa');
    expect(detectBrand('41111111111111111')).toBe('visa');
    expect(detectBrand('411111111111111111')).toBe('visa');
    expect(detectBrand('41111111111111')).toBeNull();
    expect(detectBrand('55555555555544')).toBeNull();
    expect(detectBrand('3782822463100050')).toBeNull();
    expect(detectBrand('63629700004570130')).toBeNull();
    expect(detectBrand('6011000000000000')).toBeNull();
    expect(detectBrand('4111-1111-1111-1111')).toBeNull();
  });

  it('exposes the lengths and CVV sizes', () => {
    expect(panLengths('visa')).toEqual([13, 16, 17, 18, 19]);
    expect(panLengths('amex')).toEqual([15]);
    expect(cvvLength('amex')).toBe(4);
    expect(cvvLength('visa')).toBe(3);
    expect(cvvLength('elo')).toBe(3);
    expect(isValidCvv('1234', 'amex')).toBe(true);
    expect(isValidCvv('123', 'amex')).toBe(false);
    expect(isValidCvv('123', 'hipercard')).toBe(true);
    expect(isValidCvv('12a', 'visa')).toBe(false);
  });
});

describe('validateExpiry', () => {
  const now = new Date('2026-03-15T12:00:00Z');

  it('normalises a two-digit year and reports the end of the month', () => {
    expect(validateExpiry('03', '26', now)).toEqual({
      ok: true,
      month: '03',
      year: '2026',
      expiresAt: new Date('2026-04-01T00:00:00Z'),
      expired: false,
    });
    expect(validateExpiry('12', '2030', now)).toMatchObject({ ok: true, year: '2030', expiresAt: new Date('2031-01-01T00:00:00Z') });
  });

  it('is expired only once the expiry month has ended', () => {
    expect(validateExpiry('02', '26', now)).toMatchObject({ ok: true, expired: true });
    expect(validateExpiry('03', '2026', new Date('2026-03-31T23:59:59.999Z'))).toMatchObject({ expired: false });
    expect(validateExpiry('03', '2026', new Date('2026-04-01T00:00:00Z'))).toMatchObject({ expired: true });
    expect(validateExpiry('12', '25', now)).toMatchObject({ expired: true });
  });

  it('rejects malformed months and years', () => {
    expect(validateExpiry('00', '26', now)).toEqual({ ok: false, reason: 'invalid_month' });
    expect(validateExpiry('13', '26', now)).toEqual({ ok: false, reason: 'invalid_month' });
    expect(validateExpiry('3', '26', now)).toEqual({ ok: false, reason: 'invalid_month' });
    expect(validateExpiry('1a', '26', now)).toEqual({ ok: false, reason: 'invalid_month' });
    expect(validateExpiry('03', '026', now)).toEqual({ ok: false, reason: 'invalid_year' });
    expect(validateExpiry('03', '', now)).toEqual({ ok: false, reason: 'invalid_year' });
    expect(validateExpiry('03', '2x', now)).toEqual({ ok: false, reason: 'invalid_year' });
  });
});

describe('masking', () => {
  it('maskPan keeps 6 + 4 and stars each hidden digit', () => {
    expect(maskPan('4111111111111111')).toBe('411111******1111');
    expect(maskPan('378282246310005')).toBe('378282*****0005');
    expect(maskPan('3841000000000000004')).toBe('384100*********0004');
    expect(maskPan('4111111111119')).toBe('411111***1119');
  });

  it('maskConciliation is always 15 characters', () => {
    expect(maskConciliation('4111111111111111')).toBe('4111*******1111');
    expect(maskConciliation('378282246310005')).toBe('3782*******0005');
    expect(maskConciliation('3841000000000000004')).toBe('3841*******0004');
    expect(maskConciliation('3841000000000000004')).toHaveLength(15);
  });

  it('refuses to mask something that is not a PAN', () => {
    expect(() => maskPan('12345678901')).toThrow(RangeError);
    expect(() => maskPan('4111 1111 1111 1111')).toThrow(RangeError);
    expect(() => maskConciliation('41111111111111111111')).toThrow(RangeError);
  });
});
