import { barcodeToLine, buildBarcode } from '../../domain/boleto.js';
import { buildBrCode } from '../../domain/pix.js';
import { buildFreeField, ourNumberOf } from './free-field.js';
import type { BankSlipRow } from './row.js';

export interface Registration {
  our_number: string;
  bar_code: string;
  digitable_line: string;
  pix_emv: string | null;
}

/**
 * What the (sandbox) bank answers when it registers a slip: the our number, the FEBRABAN
 * barcode and digitable line, and a static Pix BR Code for the same amount when asked (the
 * merchant's CPF/CNPJ as Pix key, the our number as txid). Throws RangeError for a slip that
 * cannot be registered; the caller records it as failed (99) with that reason.
 */
export function registrationOf(
  slip: Pick<BankSlipRow, 'seq' | 'account_number' | 'due_date' | 'value' | 'pix'>,
  merchant: { name: string; document_number: string; city: string },
  bankCode: string,
): Registration {
  const ourNumber = ourNumberOf(slip.seq);
  const barcode = buildBarcode({
    bankCode,
    dueDate: slip.due_date,
    amountCents: BigInt(slip.value),
    freeField: buildFreeField(slip.account_number, slip.seq),
  });
  let pixEmv: string | null = null;
  if (slip.pix === 1) {
    try {
      pixEmv = buildBrCode({ pixKey: merchant.document_number, amountCents: BigInt(slip.value), merchantName: merchant.name, merchantCity: merchant.city, txid: ourNumber });
    } catch (error) {
      throw new RangeError(`the Pix code cannot be built: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { our_number: ourNumber, bar_code: barcode, digitable_line: barcodeToLine(barcode), pix_emv: pixEmv };
}
