import type { PixRecurrences } from '../pix/automatico/recurrences.js';

/** What the recurrence module uses of Pix Automático (the Pix module's PixRecurrences). */
export type PixRecurrencePort = Pick<PixRecurrences, 'prepare' | 'record' | 'authorizations' | 'sendCharge' | 'requestRetry' | 'cancelByMerchant' | 'cancelCharge' | 'chargesOfSubscription'>;
