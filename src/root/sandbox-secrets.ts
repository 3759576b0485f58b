import type { Config } from '../config.js';
import type { Database } from '../db/connection.js';
import { generateDataKey, type DataCipher } from '../security/data-cipher.js';
import type { SealedColumn } from '../security/sealed-columns.js';
import { randomSecret } from '../security/passwords.js';
import type { MerchantService } from '../modules/merchants/service.js';

/**
 * Secrets and the demo merchant. Production takes its secrets from the environment only
 * (config.ts refuses to start without them); the sandbox invents them on first start and keeps
 * them in the database, so restarts print the same values.
 */
async function setting(database: Database, key: string): Promise<string | undefined> {
  const row = await database.db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
  return row?.value;
}

/** Stores `value` unless another instance got there first; answers the value that won. */
async function settingOnce(database: Database, key: string, value: () => string): Promise<string> {
  const existing = await setting(database, key);
  if (existing !== undefined) return existing;
  await database.db.insertInto('settings').values({ key, value: value() }).onConflict((oc) => oc.column('key').doNothing()).execute();
  return (await setting(database, key))!;
}

export async function resolveSecrets(config: Config, database: Database): Promise<{ dataKey: string; adminApiKey: string }> {
  if (config.mode === 'production') return { dataKey: config.dataKey!, adminApiKey: config.adminApiKey! };
  return {
    dataKey: config.dataKey ?? (await settingOnce(database, 'sandbox_data_key', generateDataKey)),
    adminApiKey: config.adminApiKey ?? (await settingOnce(database, 'sandbox_admin_api_key', () => `adm_${randomSecret(24)}`)),
  };
}

/** The demo account's row in `settings`, its password sealed with this associated data (SANDBOX_SEALED_COLUMNS below). */
export const DEMO_ACCOUNT_SETTING = 'sandbox_demo_account';
export const DEMO_PASSWORD_AD = 'demo';

export interface DemoAccount {
  merchantId: string;
  accountNumber: number;
  userName: string;
  password: string;
}

/**
 * The sandbox's demo merchant with a credential for every scope. Its password is kept
 * encrypted under DATA_KEY (sandbox only) so every start can print it; the credential itself is
 * stored as a slow hash like any other.
 */
export async function ensureDemoAccount(database: Database, merchants: MerchantService, cipher: DataCipher): Promise<DemoAccount> {
  const stored = await setting(database, DEMO_ACCOUNT_SETTING);
  if (stored) {
    const demo = JSON.parse(stored) as Omit<DemoAccount, 'password'> & { password: string };
    return { ...demo, password: cipher.decrypt(demo.password, DEMO_PASSWORD_AD) };
  }
  const merchant = await merchants.create({
    name: 'Demo Store',
    documentNumber: '11222333000181',
    legalName: 'Demo Store Ltda',
    email: 'dev@demo-store.test',
  });
  const credential = await merchants.createCredential(merchant.merchantId, { scopes: ['payments', 'recurrence', 'integration'] });
  const demo = {
    merchantId: merchant.merchantId,
    accountNumber: merchant.accountNumber,
    userName: credential.userName,
    password: cipher.encrypt(credential.password, DEMO_PASSWORD_AD),
  };
  await database.db
    .insertInto('settings')
    .values({ key: DEMO_ACCOUNT_SETTING, value: JSON.stringify(demo) })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  return ensureDemoAccount(database, merchants, cipher);
}

/** The demo account's password, sealed under DATA_KEY (listed for `gateway keys reencrypt`). */
export const SANDBOX_SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: 'settings', key: 'key', column: 'value', keyLike: DEMO_ACCOUNT_SETTING, jsonField: 'password', ad: () => DEMO_PASSWORD_AD },
];
