import { randomInt } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Database, Executor } from '../../db/connection.js';
import { isValidCpfOrCnpj } from '../../domain/documents.js';
import { invalid, notFound } from '../../domain/errors.js';
import { addressOf, checkAddress, NO_ADDRESS, type MerchantAddress } from './address.js';

export { DEFAULT_ADDRESS, shownAddress } from './address.js';
import { paging, type ListEnvelope, type ListQuery } from '../../http/listing.js';
import { isValidIpOrCidr } from '../../security/ip-allowlist.js';
import { hashPassword, randomSecret } from '../../security/passwords.js';
import { credentialsRepository, merchantsRepository, type ActiveCredential, type MerchantRow } from './repository.js';
import { PerMerchantCache } from '../../cache/per-merchant-cache.js';
import type { Scope } from '../../http/principal.js';

export type { MerchantAddress };

/** How long a credential read by a call is kept (a revocation reaches the other instances within it). */
export const CREDENTIAL_CACHE_TTL_MS = 2_000;

export { SCOPES, type Scope } from '../../http/principal.js';

export interface Merchant {
  merchantId: string;
  accountNumber: number;
  name: string;
  documentNumber: string;
  legalName: string | null;
  email: string | null;
  /** Null for a merchant registered without one. */
  address: MerchantAddress | null;
  createdDate: string;
}

export interface NewMerchant {
  name: string;
  documentNumber: string;
  legalName?: string;
  email?: string;
  address?: MerchantAddress;
}

export interface IssuedCredential {
  userName: string;
  /** Shown once: only its hash is stored. */
  password: string;
  merchantId: string;
  scopes: Scope[];
  allowedIps: string[];
}

/** An active credential as the operator's dashboard lists it: no secret. */
export interface ActiveCredentialView {
  userName: string;
  scopes: Scope[];
  allowedIps: string[];
  createdDate: string;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
function randomId(prefix: string, length: number): string {
  let id = prefix;
  for (let i = 0; i < length; i++) id += ALPHABET[randomInt(ALPHABET.length)];
  return id;
}

export function toMerchant(row: MerchantRow): Merchant {
  return {
    merchantId: row.merchant_id,
    accountNumber: Number(row.account_number),
    name: row.name,
    documentNumber: row.document_number,
    legalName: row.legal_name,
    email: row.email,
    address: addressOf(row),
    createdDate: row.created_at,
  };
}

/** Operator onboarding: merchants and their API credentials (contract section 3). */
export class MerchantService {
  /** The credentials of recent calls (see activeCredential). */
  private readonly credentialCache: PerMerchantCache<ActiveCredential>;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly passwordHashCost: number,
  ) {
    this.credentialCache = new PerMerchantCache(clock, CREDENTIAL_CACHE_TTL_MS);
  }

  async create(input: NewMerchant): Promise<Merchant> {
    const documentNumber = input.documentNumber.trim();
    // Every problem at once, before anything is written.
    const address = input.address ? checkAddress(input.address, 'address.') : { ok: true as const, columns: NO_ADDRESS };
    const problems = address.ok ? [] : address.problems;
    if (!isValidCpfOrCnpj(documentNumber)) {
      problems.unshift({ tag: 'documentNumber', description: 'documentNumber must be a valid CPF or CNPJ, digits only (alphanumeric CNPJ allowed).' });
    }
    if (!address.ok || problems.length) throw invalid(problems);
    const row = await merchantsRepository.insert(this.database.db, {
      // 4 + 16 characters: within the seeds' 20-character merchantId.
      merchant_id: randomId('mer_', 16),
      name: input.name.trim(),
      document_number: documentNumber,
      legal_name: input.legalName?.trim() || null,
      email: input.email?.trim() || null,
      created_at: this.clock.now().toISOString(),
      ...address.columns,
    });
    return toMerchant(row);
  }

  /** Sets (or replaces) the merchant's address; 400 naming every problem, and nothing written. */
  async setAddress(merchantId: string, address: MerchantAddress): Promise<Merchant> {
    const checked = checkAddress(address, '');
    if (!checked.ok) throw invalid(checked.problems);
    if (!(await merchantsRepository.setAddress(this.database.db, merchantId, checked.columns))) throw notFound('Merchant');
    return this.get(merchantId);
  }

  /** The merchant's card settings (PUT /admin/merchants/{id}/card-settings). */
  async setCardSettings(merchantId: string, settings: { verifyCardsOnSubscribe: boolean }): Promise<{ verifyCardsOnSubscribe: boolean }> {
    if (!(await merchantsRepository.setVerifyCardsOnSubscribe(this.database.db, merchantId, settings.verifyCardsOnSubscribe))) throw notFound('Merchant');
    return { verifyCardsOnSubscribe: settings.verifyCardsOnSubscribe };
  }

  async cardSettings(merchantId: string): Promise<{ verifyCardsOnSubscribe: boolean }> {
    const row = await merchantsRepository.findById(this.database.db, merchantId);
    if (!row) throw notFound('Merchant');
    return { verifyCardsOnSubscribe: Number(row.verify_cards_on_subscribe) === 1 };
  }

  async get(merchantId: string): Promise<Merchant> {
    const row = await merchantsRepository.findById(this.database.db, merchantId);
    if (!row) throw notFound('Merchant');
    return toMerchant(row);
  }

  /** The first merchant registered with this CPF/CNPJ (the CLI refuses a second one). */
  async findByDocument(documentNumber: string): Promise<Merchant | undefined> {
    const row = await merchantsRepository.findByDocument(this.database.db, documentNumber.trim());
    return row && toMerchant(row);
  }

  async list(query: ListQuery): Promise<ListEnvelope<Merchant>> {
    const p = paging(query, {
      createdDate: 'created_at',
      name: 'name',
      accountNumber: 'account_number',
      merchantId: 'merchant_id',
    });
    const { rows, total } = await merchantsRepository.list(this.database.db, p);
    return { items: rows.map(toMerchant), page: p.page, limit: p.limit, total };
  }

  async createCredential(merchantId: string, input: { scopes: Scope[]; allowedIps?: string[] }): Promise<IssuedCredential> {
    await this.get(merchantId);
    const scopes = [...new Set(input.scopes)];
    if (scopes.length === 0) throw invalid('scopes', 'scopes must hold at least one of: payments, recurrence, integration.');
    const allowedIps = [...new Set((input.allowedIps ?? []).map((s) => s.trim()))];
    const bad = allowedIps.findIndex((ip) => !isValidIpOrCidr(ip));
    if (bad >= 0) throw invalid(`allowedIps[${bad}]`, 'allowedIps entries must be IP addresses or CIDR ranges.');
    const userName = randomId('usr_', 16);
    const password = randomSecret(18);
    await credentialsRepository.insert(this.database.db, {
      user_name: userName,
      merchant_id: merchantId,
      password_hash: await hashPassword(password, this.passwordHashCost),
      scopes: scopes.join(' '),
      allowed_ips: JSON.stringify(allowedIps),
      created_at: this.clock.now().toISOString(),
      revoked_at: null,
    });
    return { userName, password, merchantId, scopes, allowedIps };
  }

  /**
   * The active credential of a userName with its merchant's account number (what the auth module
   * checks on every call), or undefined. Kept for CREDENTIAL_CACHE_TTL_MS: a revocation is
   * effective at once on the instance that made it, and within that time on the others. An
   * unknown or revoked name is never kept, so a new credential works at once.
   */
  async activeCredential(userName: string): Promise<ActiveCredential | undefined> {
    const known = this.credentialCache.peek(userName);
    if (known) return known;
    const credential = await credentialsRepository.findActive(this.database.db, userName);
    if (credential) this.credentialCache.set(userName, credential);
    return credential;
  }

  /**
   * The operator dashboard's credential list: a merchant's active credentials, without
   * any secret (the password was shown once, at issue). No API lists them; the dashboard may not
   * query this module's tables.
   */
  async credentials(merchantId: string): Promise<ActiveCredentialView[]> {
    const rows = await credentialsRepository.listActive(this.database.db, merchantId);
    return rows.map((r) => ({ userName: r.user_name, scopes: r.scopes.split(' ') as Scope[], allowedIps: JSON.parse(r.allowed_ips) as string[], createdDate: r.created_at }));
  }

  async revokeCredential(userName: string): Promise<{ userName: string; revokedAt: string }> {
    const revokedAt = this.clock.now().toISOString();
    this.credentialCache.delete(userName);
    if (!(await credentialsRepository.revoke(this.database.db, userName, revokedAt))) throw notFound('Credential');
    return { userName, revokedAt };
  }
}
