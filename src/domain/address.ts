/**
 * Brazilian address facts shared by the modules that take or show an address: the federative
 * units (UF), the CEP's shape and the state part of an IBGE municipality code.
 */

/** The 27 federative units (26 states and the Federal District). */
export const STATES = ['AC', 'AL', 'AP', 'AM', 'BA', 'CE', 'DF', 'ES', 'GO', 'MA', 'MT', 'MS', 'MG', 'PA', 'PB', 'PR', 'PE', 'PI', 'RJ', 'RN', 'RS', 'RO', 'RR', 'SC', 'SP', 'SE', 'TO'] as const;
export type State = (typeof STATES)[number];

/** A CEP as the API Pix and the bank slips write it: 8 digits, no mask. */
export const CEP_PATTERN = '^[0-9]{8}$';

/** IBGE's codes of the federative units: the first two digits of every municipality code. */
const IBGE_STATE_CODES = new Set(['11', '12', '13', '14', '15', '16', '17', '21', '22', '23', '24', '25', '26', '27', '28', '29', '31', '32', '33', '35', '41', '42', '43', '50', '51', '52', '53']);

/**
 * An IBGE municipality code (the API Pix's `codMun`): 7 digits whose first two name a federative
 * unit. The gateway holds no copy of IBGE's table of 5,570 municipalities, and the seventh digit
 * is not a reliable check digit (a few real codes fail it), so the state part is what is checked.
 */
export function isMunicipalityCode(code: string): boolean {
  return /^[0-9]{7}$/.test(code) && IBGE_STATE_CODES.has(code.slice(0, 2));
}
