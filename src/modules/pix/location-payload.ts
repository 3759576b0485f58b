import type { Selectable } from 'kysely';
import type { PixChargesTable } from '../../db/schema.js';
import { amountDueOn, dueColumnsOf, type DueTermsColumns } from './due-terms.js';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/connection.js';
import { brasiliaDate } from '../../domain/brasilia.js';
import { shownAddress, type Merchant, type MerchantService } from '../merchants/service.js';
import { formatFixed } from '../../domain/money.js';
import { locationNotFound, pricingDay, type LocationQuery } from './location-query.js';

/** The API Pix status of a charge, as a bank app reads it at the location. */
const STATUS = { Pending: 'ATIVA', Paid: 'CONCLUIDA', Expired: 'REMOVIDA_PELO_PSP' } as const;

/**
 * The "payload de cobrança imediata" the sandbox PSP serves at a charge's location (API Pix
 * v2, `PayloadLocation`/`cob`): what the payer's bank app shows and checks before paying. The
 * amount is the code's own, as the decimal string the API Pix writes; `expiracao` counts
 * seconds from `criacao`; `apresentacao` is when this answer was made.
 */
export function chargePayload(row: Selectable<PixChargesTable>, pixKey: string, presentedAt: Date) {
  return {
    revisao: 0,
    calendario: {
      criacao: row.created_at,
      apresentacao: presentedAt.toISOString(),
      expiracao: Math.round((Date.parse(row.expires_at) - Date.parse(row.created_at)) / 1000),
    },
    txid: row.txid,
    valor: { original: formatFixed(BigInt(row.amount), 2) },
    chave: pixKey,
    ...(row.description ? { solicitacaoPagador: row.description } : {}),
    status: STATUS[row.status],
  };
}

/** A charge with a due date as its location shows it: either table's row, with its status. */
export interface DueLocation extends DueTermsColumns {
  txid: string;
  created_at: string;
  payer_document: string;
  payer_name: string;
  description?: string | null;
  /** ATIVA while it can be paid; CONCLUIDA paid; REMOVIDA_PELO_PSP past its last day. */
  status: 'ATIVA' | 'CONCLUIDA' | 'REMOVIDA_PELO_PSP';
}

const person = (document: string, nome: string) => (document.length === 11 ? { cpf: document, nome } : { cnpj: document, nome });

/** The receiver (`recebedor`): the merchant's document, name and address, or the default address. */
function receiverOf(merchant: Pick<Merchant, 'name' | 'documentNumber' | 'address'>) {
  const address = shownAddress(merchant.address);
  return { ...person(merchant.documentNumber, merchant.name), logradouro: address.street, cidade: address.city, uf: address.state, cep: address.zipCode };
}

/**
 * The "payload de cobrança com vencimento" (API Pix v2, `CobVPayload`) at a `cobv`'s location:
 * the due date and the days it stays payable after it, payer and receiver, and the amount for
 * `day` (the payer's `DPP`, or `today`): `valor.final` is the original less the discount on or
 * before its date, or plus the penalty (`multa`) and interest (`juros`) after the due date, as
 * `domain/late-payment.ts` computes for a bank slip. The status is today's: past its last day
 * the charge reads REMOVIDA_PELO_PSP at its face value.
 */
export function dueChargePayload(row: DueLocation, receiver: Pick<Merchant, 'name' | 'documentNumber' | 'address'>, presentedAt: Date, day: string, today: string) {
  const owed = amountDueOn(row, day);
  const payableToday = day === today ? owed.ok : amountDueOn(row, today).ok;
  const money = (cents: bigint) => formatFixed(cents, 2);
  const valor: Record<string, string> = { original: money(BigInt(row.amount)) };
  if (owed.ok) {
    if (owed.penalty > 0n) valor.multa = money(owed.penalty);
    if (owed.interest > 0n) valor.juros = money(owed.interest);
    if (owed.discount > 0n) valor.desconto = money(owed.discount);
  }
  valor.final = money(owed.ok ? owed.total : BigInt(row.amount));
  return {
    revisao: 0,
    calendario: { criacao: row.created_at, apresentacao: presentedAt.toISOString(), dataDeVencimento: row.due_date, validadeAposVencimento: row.days_after_due },
    devedor: person(row.payer_document, row.payer_name),
    recebedor: receiverOf(receiver),
    txid: row.txid,
    valor,
    chave: receiver.documentNumber,
    ...(row.description ? { solicitacaoPagador: row.description } : {}),
    status: payableToday || row.status !== 'ATIVA' ? row.status : 'REMOVIDA_PELO_PSP',
  };
}

export interface LocationSigner {
  sign(payload: object, jku: string): Promise<string>;
}

/**
 * The sandbox PSP: the payload at a charge's location (an immediate charge, one with a due
 * date, or a slip's code), signed (compact JWS, `application/jose`) with the key whose JWKS is
 * published at `jku`. The sandbox account's Pix key is the merchant's CPF/CNPJ, as on its
 * slips' static codes. A slip paid another way (its barcode) or cancelled closes its code too.
 * A charge with a due date is priced for the payer's `DPP` (see `pricingDay`); an immediate
 * charge's location takes no parameter and ignores them. Unknown txid: 404, as a PSP answers.
 * Errors are `LocationProblem`s (the API Pix's shape).
 */
export async function signedLocationPayload(
  deps: { database: Database; clock: Clock; merchants: Pick<MerchantService, 'get'>; isOpen: (sourceId: string) => Promise<boolean> },
  txid: string,
  query: LocationQuery,
  signer: LocationSigner,
  jku: string,
): Promise<string> {
  const db = deps.database.db;
  const now = deps.clock.now();
  // The API Pix's dates are Brasília dates, whatever the server's zone.
  const today = brasiliaDate(now);
  const priced = (due: DueLocation, merchant: Merchant) => dueChargePayload(due, merchant, now, pricingDay(query, today, (day) => amountDueOn(due, day).ok), today);
  const row = await db.selectFrom('pix_charges').selectAll().where('txid', '=', txid).executeTakeFirst();
  if (row) {
    const merchant = await deps.merchants.get(row.merchant_id);
    const due = dueColumnsOf(row);
    const payload = due ? priced({ ...due, payer_document: row.payer_document ?? '', payer_name: row.payer_name ?? '', status: STATUS[row.status] }, merchant) : chargePayload(row, merchant.documentNumber, now);
    return signer.sign(payload, jku);
  }
  const code = await db.selectFrom('pix_due_charges').selectAll().where('txid', '=', txid).executeTakeFirst();
  if (!code) throw locationNotFound();
  const status = code.status === 'Paid' ? 'CONCLUIDA' : code.status === 'Pending' && (await deps.isOpen(code.source_id)) ? 'ATIVA' : 'REMOVIDA_PELO_PSP';
  return signer.sign(priced({ ...code, status }, await deps.merchants.get(code.merchant_id)), jku);
}
