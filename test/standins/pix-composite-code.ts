/**
 * The stand-in PSP's own BR Code handling for Pix Automático's composite code, written from the
 * API Pix's openapi.yaml (`dadosQR.pixCopiaECola` of `GET /rec/{idRec}?txid=` and its JORNADA_3
 * example) and the Manual de Padrões para Iniciação do Pix, not from the gateway's code: the
 * immediate charge's location in the Pix account template (26, sub-field 25), the recurrence's
 * locrec in the unreserved template 80 (GUI br.gov.bcb.pix, sub-field 25), `***` for the txid
 * and no amount, as in a dynamic code; CRC16/CCITT-FALSE over everything up to `6304`.
 */
const GUI = 'br.gov.bcb.pix';

const field = (id: string, value: string) => `${id}${String(value.length).padStart(2, '0')}${value}`;

function crc(data: string): string {
  let value = 0xffff;
  for (const byte of Buffer.from(data, 'utf8')) {
    value ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) value = value & 0x8000 ? ((value << 1) ^ 0x1021) & 0xffff : (value << 1) & 0xffff;
  }
  return value.toString(16).toUpperCase().padStart(4, '0');
}

/** The composite code a PSP answers in `dadosQR` for journey 3. */
export function compositeCode(chargeLocation: string, recurrenceLocation: string, receiver: { name: string; city: string }): string {
  const body =
    field('00', '01') + field('01', '12') + field('26', field('00', GUI) + field('25', chargeLocation)) +
    field('52', '0000') + field('53', '986') + field('58', 'BR') + field('59', receiver.name) + field('60', receiver.city) +
    field('62', field('05', '***')) + field('80', field('00', GUI) + field('25', recurrenceLocation)) + '6304';
  return body + crc(body);
}

function fields(data: string): Map<string, string> | null {
  const out = new Map<string, string>();
  for (let i = 0; i < data.length; ) {
    if (!/^\d{4}$/.test(data.slice(i, i + 4))) return null;
    const length = Number(data.slice(i + 2, i + 4));
    if (i + 4 + length > data.length) return null;
    out.set(data.slice(i, i + 2), data.slice(i + 4, i + 4 + length));
    i += 4 + length;
  }
  return out;
}

/**
 * What a payer's bank reads from a scanned composite code: the charge's location (26-25) and the
 * recurrence's (80-25), each under the Pix GUI; a reason when the code is not one.
 */
export function readCompositeCode(code: string): { chargeLocation: string; recurrenceLocation: string } | { problem: string } {
  const top = fields(code);
  if (!top || !code.endsWith(`6304${top.get('63')}`) || crc(code.slice(0, -4)) !== top.get('63')?.toUpperCase()) return { problem: 'not a BR Code, or its CRC does not match' };
  const template = (id: string) => {
    const sub = fields(top.get(id) ?? '');
    return sub?.get('00')?.toLowerCase() === GUI ? sub.get('25') : undefined;
  };
  const chargeLocation = template('26');
  const recurrenceLocation = template('80');
  if (!chargeLocation) return { problem: 'no charge location in the Pix account template (26-25)' };
  if (!recurrenceLocation) return { problem: 'no recurrence location in template 80 (80-25)' };
  return { chargeLocation, recurrenceLocation };
}
