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

/**
 * Every rule's data in one round trip: four EXISTS on the blocklist's unique (kind, value) index
 * and three velocity checks. A velocity rule asks "at least max payments in the window?", which is
 * "does the max-th newest exist?": an EXISTS over a range scan of the (merchant_id, value,
 * created_at) index with OFFSET max - 1, which stops at the threshold (a busy shared IP must not
 * make every payment scan its history). A count over a LIMITed subquery is the same walk, but
 * SQLite runs such a subquery as a co-routine and pays a yield per row, 2.3 times the cost.
 */
export async function querySignals(db: Executor, input: SignalInput): Promise<Signals> {
  const ips = input.listed.ips.length > 0 ? input.listed.ips : [NONE];
  const row = await db
    .selectNoFrom((eb) => {
      const listed = (kind: BlocklistKind, values: string[]) =>
        eb.exists(eb.selectFrom('antifraud_blocklist').select('id').where('kind', '=', kind).where('value', 'in', values));
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
        listed('card', [input.cardFingerprint]).as('listed_card'),
        listed('document', [input.listed.document ?? NONE]).as('listed_document'),
        listed('email', [input.listed.email ?? NONE]).as('listed_email'),
        listed('ip', ips).as('listed_ip'),
        reached('card_fingerprint', input.cardFingerprint, input.thresholds.card).as('velocity_card'),
        reached('customer_document', input.document ?? NONE, input.thresholds.document).as('velocity_document'),
        reached('customer_ip', input.ip ?? NONE, input.thresholds.ip).as('velocity_ip'),
      ];
    })
    .executeTakeFirstOrThrow();
  // EXISTS is a boolean on PostgreSQL and 0/1 on SQLite.
  const yes = (column: keyof typeof row) => Boolean(Number(row[column]));
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
