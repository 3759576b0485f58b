/**
 * Pix BR Code ("copia e cola", EMV MPM) build and parse (reference: brazil-standards.md,
 * "Pix BR Code"; contract sections 9 and 10).
 *
 * TLV lengths count characters. The code writes only ASCII (name, city and description are
 * normalised), so characters equal the UTF-8 bytes that the CRC covers and every reader
 * counts the same lengths.
 */

export interface TlvField {
  id: string;
  value: string;
}

const PIX_GUI = 'br.gov.bcb.pix';

/** id (2 digits) + length (2 digits) + value; values longer than 99 cannot be written. */
export function encodeTlv(id: string, value: string): string {
  if (!/^\d{2}$/.test(id)) throw new RangeError(`TLV id must be 2 digits: ${id}`);
  if (value.length > 99) throw new RangeError(`TLV ${id} longer than 99 characters`);
  return id + String(value.length).padStart(2, '0') + value;
}

/** Splits a TLV string into its fields in order; null when it is not exactly a TLV sequence. */
export function parseTlv(data: string): TlvField[] | null {
  const fields: TlvField[] = [];
  let i = 0;
  while (i < data.length) {
    const head = data.slice(i, i + 4);
    if (!/^\d{4}$/.test(head)) return null;
    const length = Number(head.slice(2));
    if (i + 4 + length > data.length) return null;
    fields.push({ id: head.slice(0, 2), value: data.slice(i + 4, i + 4 + length) });
    i += 4 + length;
  }
  return fields;
}

/** CRC16/CCITT-FALSE (poly 0x1021, init 0xFFFF) over the UTF-8 bytes, as 4 upper-case hex. */
export function crc16(data: string): string {
  let crc = 0xffff;
  for (const byte of new TextEncoder().encode(data)) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

/**
 * Printable ASCII: accents stripped ("São" -> "Sao"), anything else non-ASCII dropped,
 * spaces collapsed, cut to `maxLength` characters.
 */
export function toAscii(text: string, maxLength: number): string {
  const ascii = text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\x20-\x7E]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return ascii.slice(0, maxLength).trimEnd();
}

export interface BrCodeInput {
  /** Static code: the Pix key (e-mail, phone, CPF/CNPJ or random key). */
  pixKey?: string;
  /** Dynamic code: the location URL (a leading https:// is dropped, the code carries none). */
  locationUrl?: string;
  amountCents?: number | bigint;
  merchantName: string;
  merchantCity: string;
  /** Static: '***' or 1..25 of [A-Za-z0-9]; dynamic: '***' or up to 35 (API-Pix cob txid). */
  txid: string;
  description?: string;
  /** CEP, 8 digits. */
  postalCode?: string;
  /**
   * Pix Automático's composite code: the recurrence's location (its `locrec`), written in the
   * unreserved template 80 beside the payment's account in 26 (see RECURRENCE_TEMPLATE).
   */
  recurrenceLocationUrl?: string;
}

/**
 * Pix Automático's composite code ("QR Code composto" of the Manual de Padrões para Iniciação do
 * Pix, Pix Automático's journeys 2 to 4): the payment keeps ID 26 (journey 3: the immediate
 * charge's location in 26-25) and the recurrence rides in the unreserved template 80 (EMV
 * QRCPS-MPM IDs 80-99) under the same GUI, br.gov.bcb.pix, with its locrec's location in 80-25,
 * after 62 and before the CRC. This is the layout of the composite codes the API Pix itself
 * returns (openapi.yaml 2.9.0, `dadosQR.pixCopiaECola` of `GET /rec/{idRec}?txid=`, its
 * JORNADA_2, JORNADA_3 and JORNADA_4 examples).
 */
export const RECURRENCE_TEMPLATE = '80';

/** A BR Code carries its locations without a scheme. */
const stripScheme = (url: string) => url.replace(/^https?:\/\//i, '');

function formatAmount(cents: bigint): string {
  return `${cents / 100n}.${(cents % 100n).toString().padStart(2, '0')}`;
}

/**
 * Builds a BR Code. Name and city are upper-case ASCII cut to 25 and 15 characters (as the
 * manual asks, and so that lengths equal bytes); the description is ASCII and cut to what
 * still fits the 99-character merchant account field, since it is informative only.
 * Throws RangeError for inputs that would produce an invalid code.
 */
export function buildBrCode(input: BrCodeInput): string {
  const dynamic = input.locationUrl !== undefined;
  if (dynamic === (input.pixKey !== undefined)) throw new RangeError('exactly one of pixKey and locationUrl');
  const txidPattern = dynamic ? /^(\*\*\*|[A-Za-z0-9]{1,35})$/ : /^(\*\*\*|[A-Za-z0-9]{1,25})$/;
  if (!txidPattern.test(input.txid)) throw new RangeError('invalid txid');

  let account = encodeTlv('00', PIX_GUI);
  if (dynamic) account += encodeTlv('25', stripScheme(input.locationUrl as string));
  else account += encodeTlv('01', input.pixKey as string);
  const room = 99 - account.length - 4;
  const description = input.description === undefined ? '' : toAscii(input.description, Math.max(room, 0));
  if (description !== '') account += encodeTlv('02', description);

  const name = toAscii(input.merchantName, 25).toUpperCase();
  const city = toAscii(input.merchantCity, 15).toUpperCase();
  if (name === '' || city === '') throw new RangeError('merchant name and city must not be empty');

  let payload = encodeTlv('00', '01');
  if (dynamic) payload += encodeTlv('01', '12'); // single use; a static code omits it (reusable)
  payload += encodeTlv('26', account) + encodeTlv('52', '0000') + encodeTlv('53', '986');
  if (input.amountCents !== undefined) {
    const cents = BigInt(input.amountCents);
    if (cents <= 0n) throw new RangeError('amount must be positive');
    payload += encodeTlv('54', formatAmount(cents));
  }
  payload += encodeTlv('58', 'BR') + encodeTlv('59', name) + encodeTlv('60', city);
  if (input.postalCode !== undefined) {
    if (!/^\d{8}$/.test(input.postalCode)) throw new RangeError('postal code must be 8 digits');
    payload += encodeTlv('61', input.postalCode);
  }
  payload += encodeTlv('62', encodeTlv('05', input.txid));
  if (input.recurrenceLocationUrl !== undefined) payload += encodeTlv(RECURRENCE_TEMPLATE, encodeTlv('00', PIX_GUI) + encodeTlv('25', stripScheme(input.recurrenceLocationUrl)));
  payload += '6304';
  return payload + crc16(payload);
}

export interface BrCode {
  dynamic: boolean;
  pixKey?: string;
  locationUrl?: string;
  description?: string;
  merchantCategoryCode: string;
  currency: string;
  amountCents?: bigint;
  countryCode: string;
  merchantName: string;
  merchantCity: string;
  postalCode?: string;
  txid: string;
  /** Pix Automático's composite code: the recurrence's location (80-25). */
  recurrenceLocationUrl?: string;
  crc: string;
}

export type BrCodeError = 'malformed' | 'crc_mismatch' | 'not_pix' | 'missing_field' | 'invalid_amount';
export type ParsedBrCode = { ok: true; value: BrCode } | { ok: false; error: BrCodeError };

const fail = (error: BrCodeError): ParsedBrCode => ({ ok: false, error });

/**
 * Parses a BR Code and verifies its CRC (over everything up to and including "6304"; the hex
 * is compared case-insensitively). The Pix account may sit in any template 26..51 whose GUI
 * is br.gov.bcb.pix, as EMV allows; a composite code's recurrence in any of 80..99.
 */
export function parseBrCode(payload: string): ParsedBrCode {
  const fields = parseTlv(payload);
  const last = fields?.[fields.length - 1];
  if (fields === null || last === undefined || last.id !== '63' || !/^[0-9A-Fa-f]{4}$/.test(last.value)) {
    return fail('malformed');
  }
  if (fields[0].id !== '00' || fields[0].value !== '01') return fail('malformed');
  if (crc16(payload.slice(0, -4)) !== last.value.toUpperCase()) return fail('crc_mismatch');

  const get = (id: string) => fields.find((f) => f.id === id)?.value;
  const account = fields
    .filter((f) => Number(f.id) >= 26 && Number(f.id) <= 51)
    .map((f) => parseTlv(f.value))
    .find((t) => t?.find((s) => s.id === '00')?.value.toLowerCase() === PIX_GUI);
  if (!account) return fail('not_pix');
  const sub = (id: string) => account.find((s) => s.id === id)?.value;

  const txid = parseTlv(get('62') ?? '')?.find((s) => s.id === '05')?.value;
  const mcc = get('52');
  const currency = get('53');
  const countryCode = get('58');
  const merchantName = get('59');
  const merchantCity = get('60');
  const pixKey = sub('01');
  const locationUrl = sub('25');
  if (mcc === undefined || currency === undefined || countryCode === undefined || merchantName === undefined ||
    merchantCity === undefined || txid === undefined || (pixKey === undefined && locationUrl === undefined)) {
    return fail('missing_field');
  }

  const value: BrCode = {
    dynamic: locationUrl !== undefined,
    merchantCategoryCode: mcc,
    currency,
    countryCode,
    merchantName,
    merchantCity,
    txid,
    crc: last.value.toUpperCase(),
  };
  if (pixKey !== undefined) value.pixKey = pixKey;
  if (locationUrl !== undefined) value.locationUrl = locationUrl;
  const description = sub('02');
  if (description !== undefined) value.description = description;
  const postalCode = get('61');
  if (postalCode !== undefined) value.postalCode = postalCode;
  const recurrence = fields
    .filter((f) => Number(f.id) >= 80)
    .map((f) => parseTlv(f.value))
    .find((t) => t?.find((s) => s.id === '00')?.value.toLowerCase() === PIX_GUI);
  const recurrenceLocationUrl = recurrence?.find((s) => s.id === '25')?.value;
  if (recurrenceLocationUrl !== undefined) value.recurrenceLocationUrl = recurrenceLocationUrl;
  const amount = get('54');
  if (amount !== undefined) {
    const m = /^(\d+)(?:\.(\d{1,2}))?$/.exec(amount);
    if (m === null) return fail('invalid_amount');
    value.amountCents = BigInt(m[1]) * 100n + BigInt((m[2] ?? '').padEnd(2, '0'));
  }
  return { ok: true, value };
}
