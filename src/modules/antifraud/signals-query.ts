import { sql } from 'kysely';
import type { Executor } from '../../db/connection.js';
import type { BlocklistKind } from './repository.js';

/** What one assessment asks the database, already normalised by the engine. */
export interface SignalInput {
  merchantId: string;
  /** ISO start of the velocity window (inclusive); ISO strings compare correctly as text. */
  since: string;
  cardFingerprint: string;
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

// Stands in for an absent value: no blocklist entry is '' (values are validated), and the velocity
// check of an absent document or IP is ignored below.
const NONE = '';

/** Inputs in one statement at most: SQLite's compound SELECT allows 500 terms. */
const MAX_UNION = 100;

/**
 * Every rule's data in one round trip: four EXISTS on the blocklist's unique (kind, value) index
 * and three velocity checks. A velocity rule asks "at least max payments in the window?", which is
 * "does the max-th newest exist?": an EXISTS over a range scan of the (merchant_id, value,
 * created_at) index with OFFSET max - 1, which stops at the threshold (a busy shared IP must not
 * make every payment scan its history). A count over a LIMITed subquery is the same walk, but
 * SQLite runs such a subquery as a co-routine and pays a yield per row, 2.3 times the cost.
 */
export async function querySignals(db: Executor, input: SignalInput): Promise<Signals> {
  return (await querySignalsMany(db, [input]))[0];
}

/** `querySignals` for a batch (a billing run's payments): one statement, each input's row tagged by its position. */
export async function querySignalsMany(db: Executor, inputs: readonly SignalInput[]): Promise<Signals[]> {
  if (inputs.length > MAX_UNION) {
    const head = await querySignalsMany(db, inputs.slice(0, MAX_UNION));
    return [...head, ...(await querySignalsMany(db, inputs.slice(MAX_UNION)))];
  }
  if (inputs.length === 0) return [];
  const [first, ...rest] = inputs.map((input, index) => signalsRow(db, input, index));
  const rows = await rest.reduce((query, next) => query.unionAll(next), first).execute();
  const byIndex = new Map(rows.map((row) => [Number(row.i), row]));
  return inputs.map((input, index) => {
    const row = byIndex.get(index)!;
    // EXISTS is a boolean on PostgreSQL and 0/1 on SQLite.
    const yes = (column: keyof typeof row) => Boolean(Number(row[column]));
    return {
      listed: (['card', 'document', 'email', 'ip'] as const).filter((kind) => yes(`listed_${kind}`)),
      velocity: {
        card: yes('velocity_card'),
        document: Boolean(input.document) && yes('velocity_document'),
        ip: Boolean(input.ip) && yes('velocity_ip'),
      },
    };
  });
}

/** One input's row of signals, tagged `i` with its position. */
function signalsRow(db: Executor, input: SignalInput, index: number) {
  const ips = input.listed.ips.length > 0 ? input.listed.ips : [NONE];
  return db.selectNoFrom((eb) => {
    const listed = (kind: BlocklistKind, values: string[]) => eb.exists(eb.selectFrom('antifraud_blocklist').select('id').where('kind', '=', kind).where('value', 'in', values));
    const reached = (column: 'card_fingerprint' | 'customer_document' | 'customer_ip', value: string, threshold: number) =>
      eb.exists(
        eb
          .selectFrom('payments')
          .select('created_at')
          .where('merchant_id', '=', input.merchantId)
          .where(column, '=', value)
          .where('created_at', '>=', input.since)
          .limit(1)
          .offset(threshold - 1),
      );
    return [
      sql.lit(index).as('i'),
      listed('card', [input.cardFingerprint]).as('listed_card'),
      listed('document', [input.listed.document ?? NONE]).as('listed_document'),
      listed('email', [input.listed.email ?? NONE]).as('listed_email'),
      listed('ip', ips).as('listed_ip'),
      reached('card_fingerprint', input.cardFingerprint, input.thresholds.card).as('velocity_card'),
      reached('customer_document', input.document ?? NONE, input.thresholds.document).as('velocity_document'),
      reached('customer_ip', input.ip ?? NONE, input.thresholds.ip).as('velocity_ip'),
    ];
  });
}
