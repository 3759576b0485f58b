import { expect } from 'vitest';
import { parsePix } from 'pix-utils';
import { parseEmv } from 'pix-utils/dist/main/emvHandler.js';

const PIX_GUI = 'br.gov.bcb.pix';

/**
 * Reads a journey-3 code with pix-utils, a BR Code library independent of ours that knows
 * Pix Automático's composite code, and checks its layout: the CRC holds (a code with one
 * character changed is refused), the first charge's location is the Pix account's (26-25), the
 * recurrence's is template 80's (80-25), each under the GUI br.gov.bcb.pix, and, the code being
 * dynamic, it states no amount (54) and `***` for the txid (62-05). Answers both locations.
 */
export function decodeJourneyThreeCode(code: string): { chargeLocation: string; recurrenceLocation: string } {
  const pix = parsePix(code) as Record<string, any>;
  expect(pix.error, pix.message).toBeUndefined();
  expect(pix.type).toBe('DYNAMIC');
  const tampered = code.slice(0, 30) + (code[30] === 'a' ? 'b' : 'a') + code.slice(31);
  expect(parsePix(tampered)).toMatchObject({ error: true, message: 'invalid crc' });

  // pix-utils' getSubTag takes (sub-field, template) at run time, whatever its typings name them.
  const tags = parseEmv({ emvCode: code });
  if (!tags.isValid) throw new Error('pix-utils found no TLV structure in the code');
  // The fields present (no 54: a dynamic code states no amount); their order is checked byte for byte in test/domain/pix.test.ts.
  expect(Object.keys(tags.rawTags).map(Number).sort((a, b) => a - b)).toEqual([0, 1, 26, 52, 53, 58, 59, 60, 62, 63, 80]);
  expect(tags.getSubTag(0, 26)).toBe(PIX_GUI);
  expect(tags.getSubTag(0, 80)).toBe(PIX_GUI);
  expect(tags.getSubTag(5, 62)).toBe('***');
  const chargeLocation = tags.getSubTag(25, 26);
  const recurrenceLocation = tags.getSubTag(25, 80);
  expect(pix.url).toBe(chargeLocation);
  expect(pix.urlRec).toBe(recurrenceLocation);
  expect(chargeLocation).not.toBe(recurrenceLocation);
  return { chargeLocation, recurrenceLocation };
}
