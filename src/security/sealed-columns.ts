import { connectionAd } from '../acquirer/connections.js';
import { DEMO_ACCOUNT_SETTING, DEMO_PASSWORD_AD } from '../root/sandbox-secrets.js';
import type { DB } from '../db/schema.js';
import { cardKeyAd } from '../modules/cards/keys.js';
import { disputeFileAd } from '../modules/disputes/service.js';
import { sealChallengeAd, sealTokenAd, sealVaultAd } from '../modules/cards/service.js';
import { sealedAad as webhookSubscriptionAd } from '../modules/webhooks/repository.js';
import { LOOKUP_KEY_SETTING_PREFIX, settingAd } from './keyring.js';

/**
 * Every value sealed under DATA_KEY, in one list: where it lives and the associated data it was
 * sealed with (each owner's own function, so re-sealing binds it exactly as the owner does).
 * `gateway keys reencrypt` walks this list; a new sealed column must be added here, or it is
 * left under an old key and stops opening once that key leaves DATA_KEYS_PREVIOUS.
 * The canary (keyring.ts) is not listed: reencrypt moves it last, by itself.
 */
export interface SealedColumn {
  table: keyof DB;
  /** A unique, orderable column: batches walk the table in its order. */
  key: string;
  /** The column holding the sealed value (null and '' mean "nothing sealed", e.g. a deleted vault card). */
  column: string;
  /** The associated data the value was sealed with, from the row's key. */
  ad: (key: string) => string;
  /** Only the rows whose key is LIKE this (`settings` holds plain values too). */
  keyLike?: string;
  /** The sealed value is this field of a JSON object stored in the column. */
  jsonField?: string;
}

export const SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: 'vault_cards', key: 'vault_id', column: 'pan_sealed', ad: sealVaultAd },
  { table: 'card_tokens', key: 'number_token', column: 'pan_sealed', ad: sealTokenAd },
  // The card of a payment whose 3-D Secure challenge is open (dropped when it ends).
  { table: 'payments', key: 'payment_id', column: 'three_ds', jsonField: 'sealedCard', ad: sealChallengeAd },
  { table: 'card_keys', key: 'key_id', column: 'private_sealed', ad: cardKeyAd },
  { table: 'webhook_subscriptions', key: 'account_number', column: 'secret_sealed', ad: (key) => webhookSubscriptionAd(Number(key)) },
  { table: 'webhook_subscriptions', key: 'account_number', column: 'basic_auth_sealed', ad: (key) => webhookSubscriptionAd(Number(key)) },
  { table: 'acquirer_connections', key: 'merchant_id', column: 'merchant_key_sealed', ad: connectionAd },
  { table: 'dispute_files', key: 'file_id', column: 'content_sealed', ad: disputeFileAd },
  { table: 'settings', key: 'key', column: 'value', keyLike: `${LOOKUP_KEY_SETTING_PREFIX}%`, ad: settingAd },
  { table: 'settings', key: 'key', column: 'value', keyLike: DEMO_ACCOUNT_SETTING, jsonField: 'password', ad: () => DEMO_PASSWORD_AD },
];

export const columnName = (c: SealedColumn) => `${c.table}.${c.column}${c.jsonField ? `.${c.jsonField}` : ''}${c.keyLike ? `[${c.key} like '${c.keyLike}']` : ''}`;
