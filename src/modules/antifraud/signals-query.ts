import type { Executor } from '../../db/connection.js';
import { prepared, type PreparedQuery } from '../../db/prepared.js';
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
  /** Each count stops here: a rule only asks "at least max?". */
  caps: { card: number; document: number; ip: number };
  /** Blocklist candidates: bare document, lower-case email, the IP and the listed ranges' networks of it. */
  listed: { document?: string; email?: string; ips: string[] };
}

export interface Signals {
  listed: BlocklistKind[];
  velocity: { card: number; document: number; ip: number };
}

type Slot = string;

/**
 * Every rule's data in one round trip: four EXISTS on the blocklist's unique (kind, value) index
 * and three velocity counts, each a range scan of its (merchant_id, value, created_at) index that
 * stops at the threshold (a busy shared IP must not make every payment scan its history).
 */
function build(db: Executor, v: (slot: Slot) => any, ipCount: number) {
  return db.selectNoFrom((eb) => {
    const listed = (kind: BlocklistKind, values: unknown[]) =>
      eb.exists(eb.selectFrom('antifraud_blocklist').select('id').where('kind', '=', kind).where('value', 'in', values as string[]));
    const count = (column: 'card_fingerprint' | 'customer_document' | 'customer_ip', value: Slot, cap: Slot) =>
      eb
        .selectFrom((inner) =>
          inner
            .selectFrom('payments')
            .select('created_at')
            .where('merchant_id', '=', v('merchantId'))
            .where(column, '=', v(value))
            .where('created_at', '>=', v('since'))
            .limit(v(cap))
            .as('w'),
        )
        .select((e) => e.fn.countAll<number>().as('n'));
    return [
      listed('card', [v('cardFingerprint')]).as('listed_card'),
      listed('document', [v('listedDocument')]).as('listed_document'),
      listed('email', [v('listedEmail')]).as('listed_email'),
      listed('ip', Array.from({ length: ipCount }, (_, i) => v(`ips.${i}`))).as('listed_ip'),
      count('card_fingerprint', 'cardFingerprint', 'capCard').as('velocity_card'),
      count('customer_document', 'document', 'capDocument').as('velocity_document'),
      count('customer_ip', 'ip', 'capIp').as('velocity_ip'),
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
const byIpCount = new Map<number, PreparedQuery<Record<Slot, unknown>, Record<string, unknown>>>();

function query(ipCount: number) {
  let found = byIpCount.get(ipCount);
  if (!found) byIpCount.set(ipCount, (found = prepared((db, v) => build(db, v as (slot: Slot) => any, ipCount), { planEachCall: { untilAnalyzed: 'payments' } })));
  return found;
}

// Stands in for an absent value: no blocklist entry is '' (values are validated), and the velocity
// count of an absent document or IP is ignored below.
const NONE = '';

export async function querySignals(db: Executor, input: SignalInput): Promise<Signals> {
  const ips = input.listed.ips.length > 0 ? input.listed.ips : [NONE];
  const values: Record<Slot, unknown> = {
    merchantId: input.merchantId,
    since: input.since,
    cardFingerprint: input.cardFingerprint,
    document: input.document ?? NONE,
    ip: input.ip ?? NONE,
    capCard: input.caps.card,
    capDocument: input.caps.document,
    capIp: input.caps.ip,
    listedDocument: input.listed.document ?? NONE,
    listedEmail: input.listed.email ?? NONE,
  };
  ips.forEach((ip, i) => (values[`ips.${i}`] = ip));
  const row = (await query(ips.length).first(db, values))!;
  // EXISTS is a boolean on PostgreSQL and 0/1 on SQLite.
  const listed = (['card', 'document', 'email', 'ip'] as const).filter((kind) => Boolean(Number(row[`listed_${kind}`])));
  return {
    listed,
    velocity: {
      card: Number(row.velocity_card),
      document: input.document ? Number(row.velocity_document) : 0,
      ip: input.ip ? Number(row.velocity_ip) : 0,
    },
  };
}
