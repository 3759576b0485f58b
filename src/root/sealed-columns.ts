import { ACQUIRER_SEALED_COLUMNS } from '../acquirer/sealed-columns.js';
import { CARD_SEALED_COLUMNS } from '../modules/cards/sealed-columns.js';
import { DISPUTE_SEALED_COLUMNS } from '../modules/disputes/sealed-columns.js';
import { WEBHOOK_SEALED_COLUMNS } from '../modules/webhooks/sealed-columns.js';
import { KEYRING_SEALED_COLUMNS, type SealedColumn } from '../security/sealed-columns.js';
import { SANDBOX_SEALED_COLUMNS } from './sandbox-secrets.js';

/**
 * Every value sealed under DATA_KEY, each owner's declarations in one list: `gateway keys
 * reencrypt` walks it. A new sealed column must be declared by its owner and added here, or it
 * is left under an old key and stops opening once that key leaves DATA_KEYS_PREVIOUS.
 */
export const SEALED_COLUMNS: readonly SealedColumn[] = [
  ...CARD_SEALED_COLUMNS,
  ...WEBHOOK_SEALED_COLUMNS,
  ...ACQUIRER_SEALED_COLUMNS,
  ...DISPUTE_SEALED_COLUMNS,
  ...KEYRING_SEALED_COLUMNS,
  ...SANDBOX_SEALED_COLUMNS,
];
