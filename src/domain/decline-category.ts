/**
 * Whether a declined card may be tried again: `retryable` (ABECS "reversível") or `final`
 * ("irreversível": never try that card again, in any way).
 *
 * Source: ABECS Normativo 21 (standardised return codes of declined authorizations, in force
 * since 2020-07-15; its tables per brand mark each code reversible or irreversible), as Cielo
 * republishes it ("Códigos de Retorno padrão ABECS"). This table is over the ABECS codes the
 * gateway's contract uses (src/acquirer/types.ts ReturnCode), which is what the sandbox acquirer
 * answers; a connector with codes of its own keeps its own table (src/acquirer/cielo/mapping.ts).
 *
 * 96 (system failure: nothing was charged) is reversible in the Normativo; 78 is the "new card
 * not unlocked yet / blocked by the holder in the app" entry, reversible once the holder unlocks
 * it. Codes not listed are read as final: a code nobody can explain is not worth a retry fee.
 */
export type DeclineCategory = 'retryable' | 'final';

export const ABECS_DECLINE_CATEGORIES: Readonly<Record<string, DeclineCategory>> = {
  '04': 'retryable',
  '05': 'retryable',
  '06': 'retryable',
  '12': 'final',
  '13': 'final',
  '14': 'final',
  '19': 'final',
  '23': 'final',
  '30': 'final',
  '38': 'retryable',
  '41': 'final',
  '43': 'final',
  '46': 'final',
  '51': 'retryable',
  '54': 'final',
  '55': 'retryable',
  '57': 'final',
  '58': 'final',
  '59': 'retryable',
  '61': 'retryable',
  '62': 'retryable',
  '63': 'final',
  '64': 'final',
  '65': 'retryable',
  '75': 'retryable',
  '76': 'final',
  '77': 'final',
  '78': 'retryable',
  '91': 'retryable',
  '96': 'retryable',
};

/** The category of an ABECS return code; null for an approval or no code. */
export function declineCategoryOf(returnCode: string | null | undefined): DeclineCategory | null {
  if (!returnCode || returnCode === '00') return null;
  return ABECS_DECLINE_CATEGORIES[returnCode] ?? 'final';
}
