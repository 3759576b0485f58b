import type { SealedColumn } from '../../security/sealed-columns.js';
import { disputeFileAd } from './service.js';

/** Evidence files, sealed under DATA_KEY (the root hands them to `gateway keys reencrypt`). */
export const DISPUTE_SEALED_COLUMNS: readonly SealedColumn[] = [{ table: 'dispute_files', key: 'file_id', column: 'content_sealed', ad: disputeFileAd }];
