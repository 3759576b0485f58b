import type { Executor } from '../../db/connection.js';
import { prepared, type LentExpression, type PreparedQuery } from '../../db/prepared.js';
import type { BlocklistKind } from './repository.js';

/** What one assessment asks the database, already normalised by the engine. */
export interface SignalInput {
  merchantId: string;
  /** ISO start of the velocity window (inclusive); ISO strings compare correctly as text. */
  since: string;
  /** The fingerprint, or the card store's subquery for it (the card is then read in the same round trip). */
  cardFingerprint: string | LentExpression;
  /** Velocity: compared with `payments.customer_document` / `customer_ip` as stored. */
  document?: string;
  ip?: string;
  /** The thresholds (each at least 1): a rule only asks "at least max payments in the window?". */
  thresholds: { card: number; document: number; ip: number };
  /** Blocklist candidates: bare document, lower-case email, the IP and the listed ranges' networks of it. */
  listed: { document?: string; email?: string; ips: string[] };
}

export interface Signals {
  listed: BlocklistKind[];
  /** Whether the window holds at least the threshold's number of payments. */
  velocity: { card: boolean; document: boolean; ip: boolean };
}

type Slot = string;

/**
 * Every rule's data in one round trip: four EXISTS on the blocklist's unique (kind, value) index
 * and three velocity checks. A velocity rule asks "at least max payments in the window?", which is
 * "does the max-th newest exist?": an EXISTS over a range scan of the (merchant_id, value,
 * created_at) index with OFFSET max - 1, which stops at the threshold (a busy shared IP must not
 * make every payment scan its history). It used to be a count over a LIMITed subquery: the same
 * walk, but SQLite ran the subquery as a co-routine and paid a yield per row, 2.3 times the cost
 * (measured on a payment bench's database, 178 rows walked a payment: 37 us against 16 us).
 */
function build(db: Executor, v: (slot: Slot) => any, ipCount: number, lent: LentExpression | undefined) {
  const fingerprint = lent ? lent.build(db, v) : v('cardFingerprint');
  return db.selectNoFrom((eb) => {
    const listed = (kind: BlocklistKind, values: unknown[]) =>
      eb.exists(eb.selectFrom('antifraud_blocklist').select('id').where('kind', '=', kind).where('value', 'in', values as string[]));
    const reached = (column: 'card_fingerprint' | 'customer_document' | 'customer_ip', value: unknown, skip: Slot) =>
      eb.exists(
        eb
          .selectFrom('payments')
          .select('created_at')
          .where('merchant_id', '=', v('merchantId'))
          .where(column, '=', value as string)
          .where('created_at', '>=', v('since'))
          .limit(1)
          .offset(v(skip)),
      );
    return [
      listed('card', [fingerprint]).as('listed_card'),
      listed('document', [v('listedDocument')]).as('listed_document'),
      listed('email', [v('listedEmail')]).as('listed_email'),
      listed('ip', Array.from({ length: ipCount }, (_, i) => v(`ips.${i}`))).as('listed_ip'),
      reached('card_fingerprint', fingerprint, 'skipCard').as('velocity_card'),
      reached('customer_document', v('document'), 'skipDocument').as('velocity_document'),
      reached('customer_ip', v('ip'), 'skipIp').as('velocity_ip'),
    ];
  });
}

/**
 * Compiled once per dialect and IP-candidate count (1 + the range lengths in use): building and
 * compiling it costs about as much as running it (some 30 us on SQLite, on every payment).
 * PostgreSQL plans it on every call until `payments` has statistics, and names it after: a
 * generic plan chosen while `payments` was small and never analyzed walked the merchant's whole
 * window through another index, 5-6 ms a payment instead of 0.15 ms (src/db/statistics-gate.ts;
 * docs/performance.md, issue 15).
 */
const byShape = new Map<string, PreparedQuery<Record<Slot, unknown>, Record<string, unknown>>>();

function query(ipCount: number, lent: LentExpression | undefined) {
  const shape = `${ipCount}:${lent?.kind ?? ''}`;
  let found = byShape.get(shape);
  if (!found) byShape.set(shape, (found = prepared((db, v) => build(db, v as (slot: Slot) => any, ipCount, lent), { planEachCall: { untilAnalyzed: 'payments' } })));
  return found;
}

// Stands in for an absent value: no blocklist entry is '' (values are validated), and the velocity
// check of an absent document or IP is ignored below.
const NONE = '';

export async function querySignals(db: Executor, input: SignalInput): Promise<Signals> {
  const ips = input.listed.ips.length > 0 ? input.listed.ips : [NONE];
  const lent = typeof input.cardFingerprint === 'string' ? undefined : input.cardFingerprint;
  const values: Record<Slot, unknown> = {
    ...lent?.values,
    merchantId: input.merchantId,
    since: input.since,
    cardFingerprint: lent ? NONE : input.cardFingerprint,
    document: input.document ?? NONE,
    ip: input.ip ?? NONE,
    skipCard: input.thresholds.card - 1,
    skipDocument: input.thresholds.document - 1,
    skipIp: input.thresholds.ip - 1,
    listedDocument: input.listed.document ?? NONE,
    listedEmail: input.listed.email ?? NONE,
  };
  ips.forEach((ip, i) => (values[`ips.${i}`] = ip));
  const row = (await query(ips.length, lent).first(db, values))!;
  // EXISTS is a boolean on PostgreSQL and 0/1 on SQLite.
  const yes = (column: string) => Boolean(Number(row[column]));
  const listed = (['card', 'document', 'email', 'ip'] as const).filter((kind) => yes(`listed_${kind}`));
  return {
    listed,
    velocity: {
      card: yes('velocity_card'),
      document: Boolean(input.document) && yes('velocity_document'),
      ip: Boolean(input.ip) && yes('velocity_ip'),
    },
  };
}
