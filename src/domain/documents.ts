/**
 * CPF and CNPJ check digits (reference: brazil-standards.md, "CPF and CNPJ").
 *
 * Input is the bare document: digits only for CPF; for CNPJ 12 characters of [0-9A-Z]
 * followed by 2 digits (the alphanumeric CNPJ of IN RFB 2.229/2024; a numeric CNPJ is the
 * special case of the same rule). Masks ("529.982.247-25") and lower-case letters are
 * rejected rather than normalised: the seeds define these fields as "digits only, no mask",
 * and accepting several spellings of one document would make stored values and lookups
 * disagree. Callers that want to be lenient must normalise before calling.
 */

export type DocumentType = 'cpf' | 'cnpj';

const CPF_PATTERN = /^\d{11}$/;
const CNPJ_PATTERN = /^[0-9A-Z]{12}\d{2}$/;

const CNPJ_DV1_WEIGHTS = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
const CNPJ_DV2_WEIGHTS = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];

/** Value of one character: ASCII code - 48, so '0'..'9' keep their value and 'A' = 17. */
function charValue(ch: string): number {
  return ch.charCodeAt(0) - 48;
}

/** The mod-11 rule shared by CPF and CNPJ: remainder < 2 gives 0, else 11 - remainder. */
function mod11Dv(chars: string, weights: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < weights.length; i++) sum += charValue(chars[i]) * weights[i];
  const remainder = sum % 11;
  return remainder < 2 ? 0 : 11 - remainder;
}

/** Documents such as 00000000000 or 11111111111 pass the arithmetic but are never issued. */
function allSame(doc: string): boolean {
  return doc.split('').every((ch) => ch === doc[0]);
}

export function isValidCpf(doc: string): boolean {
  if (!CPF_PATTERN.test(doc) || allSame(doc)) return false;
  const dv1 = mod11Dv(doc, [10, 9, 8, 7, 6, 5, 4, 3, 2]);
  const dv2 = mod11Dv(doc, [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
  return dv1 === Number(doc[9]) && dv2 === Number(doc[10]);
}

/** Numeric or alphanumeric CNPJ (the check digits are always numeric). */
export function isValidCnpj(doc: string): boolean {
  if (!CNPJ_PATTERN.test(doc) || allSame(doc)) return false;
  const dv1 = mod11Dv(doc, CNPJ_DV1_WEIGHTS);
  const dv2 = mod11Dv(doc, CNPJ_DV2_WEIGHTS);
  return dv1 === Number(doc[12]) && dv2 === Number(doc[13]);
}

/** The type of a VALID document, or null (a 14-character string with bad digits is null). */
export function documentType(doc: string): DocumentType | null {
  if (doc.length === 11) return isValidCpf(doc) ? 'cpf' : null;
  if (doc.length === 14) return isValidCnpj(doc) ? 'cnpj' : null;
  return null;
}

export function isValidCpfOrCnpj(doc: string): boolean {
  return documentType(doc) !== null;
}
