import type { Selectable } from 'kysely';
import type { Executor } from '../../db/connection.js';
import type { CredentialsTable, MerchantsTable } from '../../db/schema.js';
import type { Paging } from '../../http/listing.js';

export type MerchantRow = Selectable<MerchantsTable>;
export type CredentialRow = Selectable<CredentialsTable>;
export type MerchantSortColumn = 'created_at' | 'name' | 'account_number' | 'merchant_id';

export const merchantsRepository = {
  async insert(db: Executor, row: Omit<MerchantRow, 'account_number' | 'verify_cards_on_subscribe'>): Promise<MerchantRow> {
    return db.insertInto('merchants').values(row).returningAll().executeTakeFirstOrThrow();
  },

  /** Replaces the merchant's address; false when no such merchant. */
  async setAddress(db: Executor, merchantId: string, address: Pick<MerchantRow, 'address_street' | 'address_city' | 'address_state' | 'address_zip_code'>): Promise<boolean> {
    const result = await db.updateTable('merchants').set(address).where('merchant_id', '=', merchantId).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },

  async setVerifyCardsOnSubscribe(db: Executor, merchantId: string, on: boolean): Promise<boolean> {
    const result = await db.updateTable('merchants').set({ verify_cards_on_subscribe: on ? 1 : 0 }).where('merchant_id', '=', merchantId).executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  async findById(db: Executor, merchantId: string): Promise<MerchantRow | undefined> {
    return db.selectFrom('merchants').selectAll().where('merchant_id', '=', merchantId).executeTakeFirst();
  },

  async findByDocument(db: Executor, documentNumber: string): Promise<MerchantRow | undefined> {
    return db.selectFrom('merchants').selectAll().where('document_number', '=', documentNumber).orderBy('account_number').executeTakeFirst();
  },

  async list(db: Executor, paging: Paging<MerchantSortColumn>): Promise<{ rows: MerchantRow[]; total: number }> {
    const rows = await db
      .selectFrom('merchants')
      .selectAll()
      .orderBy(paging.orderColumn, paging.direction)
      .orderBy('account_number', paging.direction)
      .limit(paging.limit)
      .offset(paging.offset)
      .execute();
    const { total } = await db
      .selectFrom('merchants')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow();
    return { rows, total: Number(total) };
  },
};

/** What an authenticated request checks of its credential. */
export interface ActiveCredential {
  user_name: string;
  merchant_id: string;
  password_hash: string;
  scopes: string;
  allowed_ips: string;
  account_number: number;
}
export const credentialsRepository = {
  async insert(db: Executor, row: CredentialRow): Promise<void> {
    await db.insertInto('credentials').values(row).execute();
  },

  /** The active credential with its merchant's account number, or undefined when revoked/unknown. */
  async findActive(db: Executor, userName: string): Promise<ActiveCredential | undefined> {
    return db
      .selectFrom('credentials')
      .innerJoin('merchants', 'merchants.merchant_id', 'credentials.merchant_id')
      .select(['credentials.user_name', 'credentials.merchant_id', 'credentials.password_hash', 'credentials.scopes', 'credentials.allowed_ips', 'merchants.account_number'])
      .where('credentials.user_name', '=', userName)
      .where('credentials.revoked_at', 'is', null)
      .executeTakeFirst();
  },

  /** A merchant's active credentials, oldest first (credentials_merchant_idx); never the password hash. */
  async listActive(db: Executor, merchantId: string) {
    return db
      .selectFrom('credentials')
      .select(['user_name', 'scopes', 'allowed_ips', 'created_at'])
      .where('merchant_id', '=', merchantId)
      .where('revoked_at', 'is', null)
      .orderBy('created_at')
      .orderBy('user_name')
      .execute();
  },

  async revoke(db: Executor, userName: string, at: string): Promise<boolean> {
    const result = await db
      .updateTable('credentials')
      .set({ revoked_at: at })
      .where('user_name', '=', userName)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },
};
