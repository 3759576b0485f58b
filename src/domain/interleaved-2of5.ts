/**
 * Interleaved 2 of 5 (ITF), the symbology of the bank slip barcode (FEBRABAN: 44 digits,
 * narrow:wide 1:3, start "narrow bar, narrow space, narrow bar, narrow space", stop "wide bar,
 * narrow space, narrow bar").
 *
 * Each digit is 5 elements, 2 of them wide. Digits go in pairs: the first digit's elements are
 * the bars, the second's the spaces between them, interleaved. The encoding is a module string:
 * '1' a bar module, '0' a space module, a narrow element 1 module and a wide one `wide` modules.
 * A drawing scales modules to the printed narrow width; the decoder reads widths back.
 */

/** N = narrow, W = wide, for digits 0..9. */
const PATTERNS = ['NNWWN', 'WNNNW', 'NWNNW', 'WWNNN', 'NNWNW', 'WNWNN', 'NWWNN', 'NNNWW', 'WNNWN', 'NWNWN'];
const START = 'NNNN';
const STOP = 'WNN';

/** The module string of an even-length run of digits, start and stop included, no quiet zone. */
export function encodeItf(digits: string, wide = 3): string {
  if (!/^(\d\d)+$/.test(digits)) throw new RangeError('ITF encodes an even, non-zero number of digits');
  if (!Number.isInteger(wide) || wide < 2) throw new RangeError('the wide element must be at least 2 modules');
  let elements = START;
  for (let i = 0; i < digits.length; i += 2) {
    const bars = PATTERNS[Number(digits[i])];
    const spaces = PATTERNS[Number(digits[i + 1])];
    for (let k = 0; k < 5; k++) elements += bars[k] + spaces[k];
  }
  elements += STOP;
  // Elements alternate bar, space, bar... starting with a bar.
  let modules = '';
  for (let i = 0; i < elements.length; i++) modules += (i % 2 === 0 ? '1' : '0').repeat(elements[i] === 'W' ? wide : 1);
  return modules;
}

/**
 * Reads a module string back to its digits (as a scanner would: element widths, classified
 * narrow or wide by the midpoint of the two widths seen), tolerating a quiet zone of spaces
 * around it. Null when the start, the stop or any digit pattern is wrong.
 */
export function decodeItf(modules: string): string | null {
  const trimmed = modules.replace(/^0+|0+$/g, '');
  if (!/^[01]+$/.test(trimmed)) return null;
  const widths = (trimmed.match(/1+|0+/g) ?? []).map((run) => run.length);
  const narrow = Math.min(...widths);
  const wide = Math.max(...widths);
  if (wide === narrow) return null;
  const elements = widths.map((w) => (w * 2 > narrow + wide ? 'W' : 'N')).join('');
  if (!elements.startsWith(START) || !elements.endsWith(STOP)) return null;
  const body = elements.slice(START.length, elements.length - STOP.length);
  if (body.length === 0 || body.length % 10 !== 0) return null;
  let digits = '';
  for (let i = 0; i < body.length; i += 10) {
    let bars = '';
    let spaces = '';
    for (let k = 0; k < 10; k += 2) {
      bars += body[i + k];
      spaces += body[i + k + 1];
    }
    const first = PATTERNS.indexOf(bars);
    const second = PATTERNS.indexOf(spaces);
    if (first < 0 || second < 0) return null;
    digits += String(first) + String(second);
  }
  return digits;
}
