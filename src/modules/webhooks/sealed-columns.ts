import type { SealedColumn } from '../../security/sealed-columns.js';
import { sealedAad } from './repository.js';

/** The secrets of webhook subscriptions, sealed under DATA_KEY (the root hands them to `gateway keys reencrypt`). */
export const WEBHOOK_SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: 'webhook_subscriptions', key: 'account_number', column: 'secret_sealed', ad: (key) => sealedAad(Number(key)) },
  { table: 'webhook_subscriptions', key: 'account_number', column: 'basic_auth_sealed', ad: (key) => sealedAad(Number(key)) },
];
