import type { Logger } from 'pino';
import type { ThreeDsDeps } from '../../threeds/types.js';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/connection.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { GatewayMetrics } from '../../observability/metrics.js';
import type { AntiFraudEngine } from '../antifraud/engine.js';
import type { CardService } from '../cards/service.js';
import type { SettlementService } from '../settlement/service.js';

/** What the payments module uses of the process's services: only the composition root builds it. */
export interface PaymentDeps {
  database: Database;
  clock: Clock;
  logger: Logger;
  queue: JobQueue;
  cards: Pick<CardService, 'paymentCard' | 'loadVaultCards' | 'keepNetworkReferences' | 'sealForChallenge' | 'openForChallenge'>;
  threeDs: ThreeDsDeps;
  antifraud: Pick<AntiFraudEngine, 'assessMany'>;
  settlement: Pick<SettlementService, 'pricing' | 'onPaymentTransition' | 'onPaymentRefund' | 'onPaymentsAuthorized'>;
  metrics: Pick<GatewayMetrics, 'paymentRecorded'>;
}

export type { ThreeDsDeps };
