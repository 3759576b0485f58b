import { addDays, startOfDay } from '../../../domain/calendar.js';
import { cnabDate } from '../../../domain/cnab240.js';
import { bankLayout } from '../../../domain/cnab240-banks.js';
import type { BankSlipDeps } from '../deps.js';
import { bankSlipsRepository as repo } from '../repository.js';
import { type BankSlipRow } from '../row.js';
import { MOVEMENT_OF } from './codes.js';
import { CnabFileWriter, document15, documentType } from './remittance.js';

/**
 * The sandbox plays the bank's side of the cycle: `GET /sandbox/bankslips/returns?date=` writes
 * the return file a bank would send for that day, an entry confirmed (02) for every slip
 * registered that day, a liquidation (06) for every payment recorded that day (the sandbox's
 * pay button, a slip's Pix, a bank's file) and a write-off (09, reason 10) for every slip the
 * merchant cancelled that day (its remittance's 02), so that an integrator tests their own reading of
 * return files, and `POST /admin/bankslips/returns` with it (everything already applied: all
 * `unchanged`).
 *
 * A bank sends a day's file once: fetched again after the day, it is the same file. So it holds
 * only what the day recorded (a payment recorded later, even with an earlier payment date, is in
 * the later day's file), and it is stamped as written when the day closed; only today's file,
 * still growing, carries the time it is fetched.
 */
export async function sandboxReturnOf(ctx: BankSlipDeps, date: string): Promise<string> {
  const nextDate = addDays(date, 1);
  const { registered, paid, writtenOff } = await repo.forSandboxReturn(ctx.database.db, date, nextDate);
  const { bankSlipBankCode: bankCode, bankSlip: bank } = ctx.config;
  const now = ctx.clock.now();
  const closed = startOfDay(nextDate);
  const layout = bankLayout(bankCode);
  // Batches of any size, each trailer with its titles in cobrança simples (one per T/U pair).
  const file = new CnabFileWriter(bankCode, bank, date, now < closed ? now : closed, 'retorno');
  const pair = (slip: BankSlipRow, movement: string, u: Record<string, string | bigint>, t: Record<string, string> = {}) =>
    file.title(BigInt(slip.value), [
      [
        layout.segmentT,
        'T',
        movement,
        {
          agency: bank.agency,
          agencyDv: bank.agencyDv,
          account: bank.account,
          accountDv: bank.accountDv,
          ourNumber: slip.our_number!,
          wallet: layout.walletCode(bank.wallet),
          documentNumber: slip.our_number!,
          dueDate: cnabDate(slip.due_date),
          value: BigInt(slip.value),
          companyReference: slip.reference_code ?? '',
          currency: '09',
          payerDocumentType: documentType(slip.payer_document),
          payerDocument: document15(slip.payer_document),
          payerName: slip.payer_name,
          ...t,
        },
      ],
      [layout.segmentU, 'U', movement, u],
    ]);
  for (const slip of registered) pair(slip, MOVEMENT_OF.registered, { occurrenceDate: cnabDate(date) });
  for (const slip of paid) {
    pair(slip, MOVEMENT_OF.paid, {
      charges: BigInt(slip.penalty_received ?? 0) + BigInt(slip.interest_received ?? 0),
      paidValue: BigInt(slip.paid_value!),
      netValue: BigInt(slip.paid_value!),
      occurrenceDate: cnabDate(slip.payment_date),
      creditDate: cnabDate(slip.credit_date),
    });
  }
  // 10: written off at the beneficiary's request, in a remittance file.
  for (const slip of writtenOff) pair(slip, MOVEMENT_OF.written_off, { occurrenceDate: cnabDate(slip.canceled_at!.slice(0, 10)) }, { reasons: '10' });
  return file.end();
}
