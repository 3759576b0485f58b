import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { Database } from '../../db/connection.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { MerchantService } from '../merchants/service.js';
import type { PaymentService } from '../payments/service.js';

/** What the payment links use of the process's services: only the composition root builds it. */
export interface PaymentLinkDeps {
  config: Pick<Config, 'publicUrl' | 'gatewayBasePath' | 'threeDs'>;
  database: Database;
  clock: Clock;
  logger: Logger;
  queue: JobQueue;
  merchants: Pick<MerchantService, 'get'>;
  payments: Pick<PaymentService, 'create' | 'reads'>;
}

/** A payment of the link, as the link records it when paid. */
export interface LinkPayment {
  payment_id: string;
  status: string;
  amount: number;
  installments: number;
  authorization_code: string | null;
  brand: string;
  masked_card_number: string;
}
