import { toJsonNumber } from '../../domain/money.js';
import type { HistoryRow, PaymentLinkRow } from './repository.js';
import type { PaymentLinkView } from './schemas.js';
import { statusFormat } from './status.js';

export const linkUrl = (publicUrl: string, id: string) => `${publicUrl}/pay/${id}`;

/** The seed's "Payment link" resource, with its history (gateway-api.md, contract section 7). */
export function toView(row: PaymentLinkRow, history: HistoryRow[], publicUrl: string): PaymentLinkView {
  return {
    id: row.id,
    sellerDocumentNumber: row.seller_document_number,
    sellerName: row.seller_name,
    description: row.description,
    value: toJsonNumber(BigInt(row.value), 2),
    qttyInstallments: row.qtty_installments,
    qttyInstallmentsCustom: row.qtty_installments_custom === null ? null : (JSON.parse(row.qtty_installments_custom) as number[]),
    qttyInstallmentsIntFree: row.qtty_installments_int_free,
    installmentsFee: toJsonNumber(BigInt(row.installments_fee), 4),
    operationDate: row.operation_date,
    expirationDate: row.expiration_date,
    link: linkUrl(publicUrl, row.id),
    message: row.message,
    status: row.status,
    statusFormat: statusFormat(row.status),
    paymentDate: row.payment_date,
    paymentValue: row.payment_value === null ? null : toJsonNumber(BigInt(row.payment_value), 2),
    paymentQttyInstallments: row.payment_qtty_installments,
    paymentAuthorizationCode: row.payment_authorization_code,
    paymentResultId: row.payment_id,
    history: history.map((h) => ({
      id: String(h.id),
      idPaymentLink: h.payment_link_id,
      reason: h.reason,
      historyDate: h.history_date,
      status: h.status,
      statusFormat: statusFormat(h.status),
    })),
  };
}

/** The terms the installment arithmetic needs, read back from a row. */
export function termsOf(row: PaymentLinkRow) {
  return {
    value: BigInt(row.value),
    qttyInstallments: row.qtty_installments,
    qttyInstallmentsCustom: row.qtty_installments_custom === null ? null : (JSON.parse(row.qtty_installments_custom) as number[]),
    qttyInstallmentsIntFree: row.qtty_installments_int_free,
    installmentsFee: BigInt(row.installments_fee),
  };
}
