import type { FieldSpec, Layout } from './cnab240.js';
import * as febraban from './cnab240-layout.js';

/**
 * Bank layouts as data: FEBRABAN's generic CNAB 240 cobrança (src/domain/cnab240-layout.ts) is
 * the base, and a bank's manual is an overlay of the fields it defines differently. A bank
 * without an entry here is written in the generic layout. Sources are cited in
 * docs/connectors.md ("Bank slips with the bank (CNAB 240)").
 */
export interface BankLayout {
  /** FEBRABAN bank code, or `generic`. */
  code: string;
  name: string;
  fileHeader: Layout;
  batchHeader: Layout;
  segmentP: Layout;
  segmentQ: Layout;
  segmentR: Layout;
  segmentT: Layout;
  segmentU: Layout;
  batchTrailer: Layout;
  fileTrailer: Layout;
  fileLayoutVersion: string;
  batchLayoutVersion: string;
  /** Settings a real remittance in this layout needs beyond the common ones (BANK_SLIP_PROVIDER=cnab refuses to start without them). */
  requiredSettings: readonly string[];
  /** Whether the inscription fields carry the alphanumeric CNPJ (`doc` fields); if not, the issue API refuses such a payer. */
  alphanumericCnpj: boolean;
  /**
   * BANK_SLIP_WALLET (and BANK_SLIP_WALLET_VARIATION) checked against the bank's manual: a
   * problem in words, or null. Checked when the service starts.
   */
  checkWallet(wallet: string, variation: string): string | null;
  checkAgreement(agreement: string): string | null;
  /** Segment P position 58 ("código da carteira") for the configured wallet. */
  walletCode(wallet: string): string;
}

/**
 * `base` with the fields of `fields` put in: every base field that overlaps a new one is taken
 * out (a bank splits FEBRABAN's 20-position convênio into its own pieces), the rest kept in
 * position order. The layouts' unit test checks each result still covers 1-240 exactly.
 */
export function overlay(base: Layout, fields: FieldSpec[]): Layout {
  const overlaps = (a: FieldSpec, b: FieldSpec) => a[1] <= b[2] && b[1] <= a[2];
  const kept = base.filter((field) => !fields.some((f) => overlaps(f, field)));
  return [...kept, ...fields].sort((a, b) => a[1] - b[1]);
}

const FEBRABAN_WALLETS: Record<string, string> = { '1': 'simples', '2': 'vinculada', '3': 'caucionada', '4': 'descontada', '5': 'vendor' };

export const FEBRABAN_GENERIC: BankLayout = {
  code: 'generic',
  name: 'FEBRABAN CNAB 240 (generic)',
  fileHeader: febraban.FILE_HEADER,
  batchHeader: febraban.BATCH_HEADER,
  segmentP: febraban.SEGMENT_P,
  segmentQ: febraban.SEGMENT_Q,
  segmentR: febraban.SEGMENT_R,
  segmentT: febraban.SEGMENT_T,
  segmentU: febraban.SEGMENT_U,
  batchTrailer: febraban.BATCH_TRAILER,
  fileTrailer: febraban.FILE_TRAILER,
  fileLayoutVersion: febraban.FILE_LAYOUT_VERSION,
  batchLayoutVersion: febraban.BATCH_LAYOUT_VERSION,
  requiredSettings: [],
  alphanumericCnpj: true,
  // FEBRABAN's code table C006: one digit, 1 to 5.
  checkWallet: (wallet) => (FEBRABAN_WALLETS[wallet] ? null : `BANK_SLIP_WALLET must be FEBRABAN's carteira code 1 to 5 (1 simples) in the generic layout, got "${wallet}"`),
  checkAgreement: (agreement) => (agreement.length <= 20 ? null : 'BANK_SLIP_AGREEMENT (convênio) must be at most 20 characters'),
  walletCode: (wallet) => wallet,
};

/**
 * Banco do Brasil's carteiras and the code segment P position 58 carries for each: "1 para
 * carteira 11/12 na modalidade Simples; 2 ou 3 para carteira 11/17 modalidade
 * Vinculada/Caucionada e carteira 31; 4 para carteira 11/17 modalidade Descontada e carteira 51;
 * 7 para carteira 17 modalidade Simples" (BB's manual, field 13.3P).
 */
const BB_WALLET_CODES: Record<string, string> = { '11': '1', '12': '1', '17': '7', '31': '2', '51': '4' };

/** Banco do Brasil's convênio, 0014 and its carteira/variação, where FEBRABAN has 20 positions for the convênio. */
const bbAgreement = (start: number): FieldSpec[] => [
  ['agreement', start, start + 8, 'num'],
  /** "Informar 0014 para cobrança cedente". */
  ['bbCollection', start + 9, start + 12, 'num', '0014'],
  ['wallet', start + 13, start + 14, 'num'],
  ['walletVariation', start + 15, start + 17, 'num'],
  /** File header: reserved, blanks. Batch header: blanks, or `TS` for a test remittance. */
  ['bbReserved', start + 18, start + 19, 'alpha'],
];

/** The end of Banco do Brasil's file header, where FEBRABAN has 29 reserved blanks: fields BB reads or fills in its return. */
const BB_FILE_HEADER_END: FieldSpec[] = [
  ['febraban3', 212, 222, 'alpha'],
  /** Identificação cobrança sem papel: blanks. */
  ['paperless', 223, 225, 'alpha'],
  /** Uso exclusivo das VANs, tipo de serviço, ocorrências (the bank's, in a return): zeros. */
  ['vanControl', 226, 228, 'num'],
  ['serviceType', 229, 230, 'num'],
  ['occurrences', 231, 240, 'num'],
];

/**
 * Banco do Brasil (001), "Layout de Arquivo Padrão CNAB 240 - Cobrança" / "Particularidades BB,
 * Leiaute CNAB 240": the file header's convênio at 33-41, `0014` at 42-45, carteira at 46-47,
 * variação at 48-50 and 51-52 reserved, and its fields at 212-240; the batch header's convênio
 * pieces one position later (34-53); segment P position 58 from the carteira. Everything else is
 * FEBRABAN's.
 */
export const BANCO_DO_BRASIL: BankLayout = {
  ...FEBRABAN_GENERIC,
  code: '001',
  name: 'Banco do Brasil',
  fileHeader: overlay(febraban.FILE_HEADER, [...bbAgreement(33), ...BB_FILE_HEADER_END]),
  batchHeader: overlay(febraban.BATCH_HEADER, bbAgreement(34)),
  requiredSettings: ['BANK_SLIP_WALLET', 'BANK_SLIP_WALLET_VARIATION'],
  checkWallet: (wallet, variation) => {
    if (!BB_WALLET_CODES[wallet]) return `BANK_SLIP_WALLET must be a Banco do Brasil carteira (${Object.keys(BB_WALLET_CODES).join(', ')}), got "${wallet}"`;
    if (!/^\d{1,3}$/.test(variation)) return `BANK_SLIP_WALLET_VARIATION (variação da carteira) must be 1 to 3 digits, got "${variation}"`;
    return null;
  },
  checkAgreement: (agreement) => (/^\d{1,9}$/.test(agreement) ? null : `BANK_SLIP_AGREEMENT (convênio) must be up to 9 digits for Banco do Brasil, got "${agreement}"`),
  walletCode: (wallet) => BB_WALLET_CODES[wallet] ?? '1',
};

const BANKS: Record<string, BankLayout> = { '001': BANCO_DO_BRASIL };

/** The layout the files of `bankCode` are written in. */
export function bankLayout(bankCode: string): BankLayout {
  return BANKS[bankCode] ?? FEBRABAN_GENERIC;
}

/** Bank codes with a layout of their own (docs/operations.md lists them). */
export const SUPPORTED_BANKS = Object.keys(BANKS);
