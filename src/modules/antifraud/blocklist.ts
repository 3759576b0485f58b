import type { Clock } from '../../clock.js';
import type { Database, Executor } from '../../db/connection.js';
import { luhnValid } from '../../domain/cards.js';
import { isValidCpfOrCnpj } from '../../domain/documents.js';
import { conflict, invalid, notFound } from '../../domain/errors.js';
import { paging, type ListEnvelope, type ListQuery } from '../../http/listing.js';
import type { DataCipher } from '../../security/data-cipher.js';
import { cardFingerprint } from '../cards/card-data.js';
import { canonicalIpOrCidr, enclosingEntries, entryShape, type PrefixLengths } from './ip.js';
import { antifraudRepository, type BlocklistKind, type BlocklistRow } from './repository.js';

export const BLOCKLIST_KINDS = ['card', 'document', 'email', 'ip'] as const satisfies readonly BlocklistKind[];

export interface BlocklistEntry {
  id: number;
  kind: BlocklistKind;
  /** Cards: the fingerprint, never the number. Documents bare, emails lower-case, IPs canonical. */
  value: string;
  reason: string | null;
  createdDate: string;
}

/** Multi-instance: bounds how long a range added elsewhere, of a length new here, goes unchecked. */
export const RANGE_LENGTHS_TTL_MS = 5_000;

const FINGERPRINT = /^[0-9a-f]{64}$/;
const PAN = /^\d{12,19}$/;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** A document as the merchant may have typed it (mask, lower-case letters) to the bare form. */
export function bareDocument(document: string): string {
  return document.replace(/[\s./-]/g, '').toUpperCase();
}

export const normaliseEmail = (email: string) => email.trim().toLowerCase();

function toEntry(row: BlocklistRow): BlocklistEntry {
  return { id: Number(row.id), kind: row.kind, value: row.value, reason: row.reason, createdDate: row.created_at };
}

/** Operator blocklists (any merchant's payment matching an entry is rejected). */
export class BlocklistService {
  private lengths: (PrefixLengths & { expiresAt: number }) | undefined;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly cipher: DataCipher,
  ) {}

  /**
   * The stored form of a value, or a 400 on `value`. Descriptions never repeat the value:
   * it may be a card number.
   */
  normalise(kind: BlocklistKind, value: string): string {
    switch (kind) {
      case 'card': {
        const compact = value.replace(/[\s-]/g, '');
        if (FINGERPRINT.test(compact.toLowerCase())) return compact.toLowerCase();
        if (PAN.test(compact) && luhnValid(compact)) return cardFingerprint(this.cipher, compact);
        throw invalid('value', 'A card entry must be a card number (12 to 19 digits, Luhn-valid) or its 64-character hex fingerprint.');
      }
      case 'document': {
        const bare = bareDocument(value);
        if (isValidCpfOrCnpj(bare)) return bare;
        throw invalid('value', 'A document entry must be a valid CPF or CNPJ.');
      }
      case 'email': {
        const email = normaliseEmail(value);
        if (EMAIL.test(email)) return email;
        throw invalid('value', 'An email entry must be an email address.');
      }
      case 'ip': {
        const entry = canonicalIpOrCidr(value);
        if (entry) return entry;
        throw invalid('value', 'An ip entry must be an IPv4 or IPv6 address or CIDR range.');
      }
    }
  }

  async add(input: { kind: BlocklistKind; value: string; reason?: string }): Promise<BlocklistEntry> {
    const value = this.normalise(input.kind, input.value);
    const row = await antifraudRepository.insertBlock(this.database.db, {
      kind: input.kind,
      value,
      reason: input.reason?.trim() || null,
      created_at: this.clock.now().toISOString(),
    });
    if (!row) throw conflict(`This ${input.kind} is already on the blocklist.`, 'duplicate');
    if (input.kind === 'ip' && value.includes('/')) this.lengths = undefined; // its length counts from the next payment
    return toEntry(row);
  }

  async list(query: ListQuery & { kind?: BlocklistKind }): Promise<ListEnvelope<BlocklistEntry>> {
    const p = paging(query, { createdDate: 'created_at', id: 'id', kind: 'kind', value: 'value' });
    const { rows, total } = await antifraudRepository.listBlocks(this.database.db, query.kind, p);
    return { items: rows.map(toEntry), page: p.page, limit: p.limit, total };
  }

  async remove(id: number): Promise<BlocklistEntry> {
    const row = await antifraudRepository.deleteBlock(this.database.db, id);
    if (!row) throw notFound('Blocklist entry');
    return toEntry(row);
  }

  /**
   * The values a payment is looked up by: as stored here, and an IP with every listed range that
   * could contain it. Reads on `executor` (the caller may hold a transaction).
   */
  async candidates(executor: Executor, payment: { document?: string; email?: string; ip?: string }): Promise<{ document?: string; email?: string; ips: string[] }> {
    return {
      document: payment.document ? bareDocument(payment.document) : undefined,
      email: payment.email ? normaliseEmail(payment.email) : undefined,
      ips: payment.ip ? enclosingEntries(payment.ip, await this.rangeLengths(executor)) : [],
    };
  }

  /**
   * The prefix lengths the listed IP ranges use, so an IP is looked up as itself plus its network
   * at those few lengths instead of at all 32 (IPv4) or 128 (IPv6); that list is most of the
   * lookup's cost. Cached: a range this instance adds counts at once; one of a length new to
   * this instance, added through another instance, within RANGE_LENGTHS_TTL_MS.
   */
  private async rangeLengths(executor: Executor): Promise<PrefixLengths> {
    if (this.lengths && this.lengths.expiresAt > this.clock.wallNow().getTime()) return this.lengths;
    const found = { ipv4: new Set<number>(), ipv6: new Set<number>() };
    for (const range of await antifraudRepository.blockedRanges(executor)) {
      const { family, bits } = entryShape(range);
      found[family].add(bits);
    }
    const descending = (set: Set<number>) => [...set].sort((a, b) => b - a);
    this.lengths = { ipv4: descending(found.ipv4), ipv6: descending(found.ipv6), expiresAt: this.clock.wallNow().getTime() + RANGE_LENGTHS_TTL_MS };
    return this.lengths;
  }
}
