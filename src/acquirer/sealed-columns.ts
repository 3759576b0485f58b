import type { SealedColumn } from '../security/sealed-columns.js';
import { connectionAd } from './connections.js';

/** The MerchantKeys of merchants' own connections, sealed under DATA_KEY (the root hands them to `gateway keys reencrypt`). */
export const ACQUIRER_SEALED_COLUMNS: readonly SealedColumn[] = [{ table: 'acquirer_connections', key: 'merchant_id', column: 'merchant_key_sealed', ad: connectionAd }];
