/**
 * FEBRABAN CNAB 240 cobrança codes this gateway reads and writes, as data (the manual's tables
 * C044 "código de movimento retorno" and C047 "motivo da ocorrência"). Nothing outside
 * src/modules/bankslips/cnab/ knows these numbers.
 */

/** Remessa movements (segment P, positions 16-17). */
export const REMITTANCE = { entry: '01', writeOff: '02' } as const;

/** What a return movement means to a slip. Movements not listed are informational: counted unchanged. */
export type ReturnOutcome = 'registered' | 'rejected' | 'paid' | 'written_off';

export const RETURN_MOVEMENTS: Record<string, ReturnOutcome> = {
  '02': 'registered', // entrada confirmada
  '03': 'rejected', // entrada rejeitada
  '06': 'paid', // liquidação
  '09': 'written_off', // baixa
  '17': 'paid', // liquidação após baixa ou de título não registrado: the money arrived all the same
};

/** The return movement the sandbox writes for each outcome. */
export const MOVEMENT_OF: Record<ReturnOutcome, string> = { registered: '02', rejected: '03', paid: '06', written_off: '09' };

/** Reasons of an entry rejected (movement 03), the ones a gateway's data can cause. */
export const REJECTION_REASONS: Record<string, string> = {
  '01': 'invalid bank code',
  '04': 'movement not allowed for the wallet',
  '06': 'invalid beneficiary document',
  '07': 'invalid agency/account',
  '08': 'invalid nosso número',
  '09': 'duplicated nosso número',
  '10': 'invalid wallet',
  '16': 'invalid due date',
  '17': 'due date before issue date',
  '20': 'invalid value',
  '21': 'invalid species',
  '24': 'invalid issue date',
  '26': 'invalid interest code',
  '27': 'invalid interest rate',
  '45': 'payer name missing',
  '46': 'invalid payer document',
  '47': 'payer address missing',
  '48': 'invalid CEP',
  '49': 'CEP without a collecting branch',
  '52': 'invalid state (UF)',
  '54': 'invalid guarantor (sacador/avalista)',
};

/** Reasons of a write-off (movement 09). */
export const WRITE_OFF_REASONS: Record<string, string> = {
  '09': 'by the bank',
  '10': 'by the beneficiary, in a remittance file',
  '11': 'by the beneficiary, online',
  '12': 'term expired (beneficiary)',
  '13': 'term expired (bank)',
  '14': 'protested',
  '15': 'slip excluded',
};

/** "code description; code description" for the slip's failure or cancellation reason. */
export function describeReasons(codes: string[], table: Record<string, string>): string {
  if (codes.length === 0) return 'no reason given';
  return codes.map((code) => `${code} ${table[code] ?? 'unlisted reason'}`).join('; ');
}

/** CNAB espécie do título 02: duplicata mercantil (printed as DM on the slip). */
export const SPECIES = { code: '02', printed: 'DM' } as const;

