import { describe, expect, it } from 'vitest';
import { buildBrCode, crc16, encodeTlv, parseBrCode, parseTlv, toAscii } from '../../src/domain/pix.js';

const STATIC_KEY =
  '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D';
const STATIC_AMOUNT =
  '00020126510014br.gov.bcb.pix0115thalesog@me.com0210Pedido 123520400005303986540510.005802BR5914THALES OGLIARI6015SAO MIGUEL DO O62070503***63040DC6';
const DYNAMIC =
  '00020101021226740014br.gov.bcb.pix2552payload.psp.com/3ec9d2f9-5f03-4e0e-820d-63a81e769e875204000053039865802BR5914THALES OGLIARI6015SAO MIGUEL DO O62070503***63042895';
/** Pix Automático's journey-3 composite code, the API Pix's own example (openapi.yaml 2.9.0, recResponse6 `dadosQR`). */
const JOURNEY_3 =
  '00020101021226760014br.gov.bcb.pix2554pix.example.com/qr/v2/8b3da2f39a4140d1a91abd93113bd4415204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***80800014br.gov.bcb.pix2558pix.example.com/qr/v2/rec/94ed2badcbc04c15b0bb7fa35319489063047741';

describe('CRC16/CCITT-FALSE', () => {
  it('has the standard check value', () => {
    expect(crc16('123456789')).toBe('29B1');
    expect(crc16('')).toBe('FFFF');
  });

  it('matches the CRC of each reference code', () => {
    expect(crc16(STATIC_KEY.slice(0, -4))).toBe('1D3D');
    expect(crc16(STATIC_AMOUNT.slice(0, -4))).toBe('0DC6');
    expect(crc16(DYNAMIC.slice(0, -4))).toBe('2895');
  });
});

describe('TLV', () => {
  it('encodes and parses', () => {
    expect(encodeTlv('05', '***')).toBe('0503***');
    expect(encodeTlv('26', '')).toBe('2600');
    expect(parseTlv('0503***5802BR')).toEqual([{ id: '05', value: '***' }, { id: '58', value: 'BR' }]);
    expect(parseTlv('')).toEqual([]);
  });

  it('rejects what is not TLV', () => {
    expect(parseTlv('0505***')).toBeNull();
    expect(parseTlv('05')).toBeNull();
    expect(parseTlv('0A02BR')).toBeNull();
    expect(() => encodeTlv('5', 'x')).toThrow(RangeError);
    expect(() => encodeTlv('02', 'x'.repeat(100))).toThrow(RangeError);
  });
});

describe('parseBrCode', () => {
  it('parses the static code with a random key', () => {
    expect(parseBrCode(STATIC_KEY)).toEqual({
      ok: true,
      value: {
        dynamic: false,
        pixKey: '123e4567-e12b-12d1-a456-426655440000',
        merchantCategoryCode: '0000',
        currency: '986',
        countryCode: 'BR',
        merchantName: 'Fulano de Tal',
        merchantCity: 'BRASILIA',
        txid: '***',
        crc: '1D3D',
      },
    });
  });

  it('parses the static code with amount and description', () => {
    const parsed = parseBrCode(STATIC_AMOUNT);
    expect(parsed).toMatchObject({
      ok: true,
      value: { dynamic: false, pixKey: 'thalesog@me.com', description: 'Pedido 123', amountCents: 1000n, merchantName: 'THALES OGLIARI', merchantCity: 'SAO MIGUEL DO O', crc: '0DC6' },
    });
  });

  it('parses the dynamic code', () => {
    const parsed = parseBrCode(DYNAMIC);
    expect(parsed).toMatchObject({
      ok: true,
      value: { dynamic: true, locationUrl: 'payload.psp.com/3ec9d2f9-5f03-4e0e-820d-63a81e769e87', txid: '***', crc: '2895' },
    });
    expect(parsed.ok ? parsed.value.pixKey : 'not parsed').toBeUndefined();
  });

  it('detects tampering and malformed codes', () => {
    expect(parseBrCode(STATIC_AMOUNT.replace('10.00', '90.00'))).toEqual({ ok: false, error: 'crc_mismatch' });
    expect(parseBrCode(STATIC_KEY.slice(0, -4) + '1D3E')).toEqual({ ok: false, error: 'crc_mismatch' });
    expect(parseBrCode(STATIC_KEY.slice(0, -4) + '1d3d')).toMatchObject({ ok: true });
    expect(parseBrCode(STATIC_KEY.slice(0, -1))).toEqual({ ok: false, error: 'malformed' });
    expect(parseBrCode('')).toEqual({ ok: false, error: 'malformed' });
    expect(parseBrCode('hello')).toEqual({ ok: false, error: 'malformed' });
  });

  it('requires a Pix account and a txid', () => {
    const withCrc = (body: string) => body + '6304' + crc16(body + '6304');
    expect(parseBrCode(withCrc('000201260800041234520400005303986' + '5802BR5901A6001B62070503***'))).toEqual({ ok: false, error: 'not_pix' });
    const noTxid = withCrc('00020126220014br.gov.bcb.pix0100520400005303986' + '5802BR5901A6001B');
    expect(parseBrCode(noTxid)).toEqual({ ok: false, error: 'missing_field' });
  });
});

describe('buildBrCode', () => {
  it('rebuilds the static code with amount and description byte for byte', () => {
    expect(
      buildBrCode({ pixKey: 'thalesog@me.com', description: 'Pedido 123', amountCents: 1000, merchantName: 'Thales Ogliari', merchantCity: 'São Miguel do Oeste', txid: '***' }),
    ).toBe(STATIC_AMOUNT);
  });

  it('rebuilds the dynamic code byte for byte (scheme dropped)', () => {
    expect(
      buildBrCode({ locationUrl: 'https://payload.psp.com/3ec9d2f9-5f03-4e0e-820d-63a81e769e87', merchantName: 'THALES OGLIARI', merchantCity: 'SAO MIGUEL DO O', txid: '***' }),
    ).toBe(DYNAMIC);
  });

  it('rebuilds the random-key code with the name upper-cased (the vector has mixed case)', () => {
    const built = buildBrCode({ pixKey: '123e4567-e12b-12d1-a456-426655440000', merchantName: 'Fulano de Tal', merchantCity: 'Brasília', txid: '***' });
    const expectedBody = STATIC_KEY.slice(0, -4).replace('Fulano de Tal', 'FULANO DE TAL');
    expect(built).toBe(expectedBody + crc16(expectedBody));
    expect(parseBrCode(built)).toMatchObject({ ok: true, value: { merchantName: 'FULANO DE TAL', merchantCity: 'BRASILIA' } });
  });

  it('writes a charge code that parses back', () => {
    const code = buildBrCode({
      locationUrl: 'pix.example.com/qr/v2/7d9f0335-8dcc-4054-9bf9-0dbd61d36906',
      amountCents: 123_456n,
      merchantName: 'Padaria Pão de Açúcar Comércio Ltda',
      merchantCity: 'São José dos Campos',
      txid: 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5',
      postalCode: '12245000',
    });
    const parsed = parseBrCode(code);
    expect(parsed).toMatchObject({
      ok: true,
      value: { dynamic: true, amountCents: 123_456n, merchantName: 'PADARIA PAO DE ACUCAR COM', merchantCity: 'SAO JOSE DOS CA', txid: 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5', postalCode: '12245000' },
    });
    expect(code).toContain('5407' + '1234.56');
    expect(code).toContain('010212');
  });

  it('cuts the description to fit the account field', () => {
    const key = 'k'.repeat(60);
    const code = buildBrCode({ pixKey: key, description: 'd'.repeat(50), merchantName: 'A', merchantCity: 'B', txid: '***' });
    const parsed = parseBrCode(code);
    expect(parsed.ok && parsed.value.description).toBe('d'.repeat(13)); // 18 + 64 + 4 + 13 = 99
  });

  it("writes Pix Automático's journey-3 composite code as the API Pix's example lays it out: the charge in 26, the recurrence in 80", () => {
    const built = buildBrCode({
      locationUrl: 'https://pix.example.com/qr/v2/8b3da2f39a4140d1a91abd93113bd441',
      recurrenceLocationUrl: 'pix.example.com/qr/v2/rec/94ed2badcbc04c15b0bb7fa353194890',
      merchantName: 'Fulano de Tal',
      merchantCity: 'Brasília',
      txid: '***',
    });
    const expectedBody = JOURNEY_3.slice(0, -4).replace('Fulano de Tal', 'FULANO DE TAL');
    expect(built).toBe(expectedBody + crc16(expectedBody));
    expect(parseBrCode(JOURNEY_3)).toMatchObject({
      ok: true,
      value: { dynamic: true, locationUrl: 'pix.example.com/qr/v2/8b3da2f39a4140d1a91abd93113bd441', recurrenceLocationUrl: 'pix.example.com/qr/v2/rec/94ed2badcbc04c15b0bb7fa353194890', txid: '***' },
    });
    const plain = parseBrCode(DYNAMIC);
    expect(plain.ok && plain.value.recurrenceLocationUrl).toBeUndefined();
  });

  it('refuses invalid input', () => {
    const base = { merchantName: 'A', merchantCity: 'B', txid: '***' };
    expect(() => buildBrCode({ ...base, locationUrl: 'u', recurrenceLocationUrl: 'r'.repeat(78) })).toThrow(RangeError);
    expect(() => buildBrCode({ ...base })).toThrow(RangeError);
    expect(() => buildBrCode({ ...base, pixKey: 'k', locationUrl: 'u' })).toThrow(RangeError);
    expect(() => buildBrCode({ ...base, pixKey: 'k', txid: 'x'.repeat(26) })).toThrow(RangeError);
    expect(() => buildBrCode({ ...base, pixKey: 'k', txid: 'ab-c' })).toThrow(RangeError);
    expect(() => buildBrCode({ ...base, pixKey: 'k', amountCents: 0 })).toThrow(RangeError);
    expect(() => buildBrCode({ ...base, pixKey: 'k', merchantName: 'ção'.replace(/./g, '\u0301') })).toThrow(RangeError);
    expect(() => buildBrCode({ ...base, pixKey: 'k', postalCode: '1234-567' })).toThrow(RangeError);
  });
});

describe('toAscii', () => {
  it('strips accents, collapses spaces and truncates', () => {
    expect(toAscii('São Paulo', 15)).toBe('Sao Paulo');
    expect(toAscii('  Ação   Ltda  ', 25)).toBe('Acao Ltda');
    expect(toAscii('José da Silva Comércio de Alimentos', 25)).toBe('Jose da Silva Comercio de');
    expect(toAscii('Rio de Janeiro Capital', 15)).toBe('Rio de Janeiro');
    expect(toAscii('Café ☕', 10)).toBe('Cafe');
  });
});
