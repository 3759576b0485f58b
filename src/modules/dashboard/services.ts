import type { Config } from '../../config.js';
import type { Database } from '../../db/connection.js';
import type { Clock } from '../../clock.js';
import type { MerchantService } from '../merchants/service.js';
import type { CardService } from '../cards/service.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { JobHandlers } from '../../jobs/registry.js';
import type { AntiFraudEngine } from '../antifraud/engine.js';
import type { AcquirerConnections } from '../../acquirer/connections.js';
import type { PaymentService } from '../payments/service.js';
import type { DisputeService } from '../disputes/service.js';
import type { PaymentLinkService } from '../paymentlinks/service.js';
import type { RecurrenceService } from '../recurrence/service.js';
import type { SettlementService } from '../settlement/service.js';
import type { BankSlipService } from '../bankslips/service.js';
import type { PixService } from '../pix/service.js';
import type { WebhookService } from '../webhooks/service.js';
import type { SandboxClockService } from '../sandbox/clock-service.js';
import type { SandboxResetService } from '../sandbox/reset-service.js';
import type { GatewayMetrics } from '../../observability/metrics.js';
import type { StreamSlots } from '../../http/stream-slots.js';
import type { AuthService } from '../auth/service.js';

/** What the dashboard's pages show and act through (merchant and operator pages): the services, the sessions' auth and the configuration. */
export interface DashboardServices {
  config: Config;
  database: Database;
  clock: Clock;
  merchants: MerchantService;
  cards: CardService;
  queue: JobQueue;
  handlers: JobHandlers;
  antifraud: AntiFraudEngine;
  acquirerConnections: AcquirerConnections;
  payments: PaymentService;
  disputes: DisputeService;
  paymentLinks: PaymentLinkService;
  recurrence: RecurrenceService;
  settlement: SettlementService;
  bankSlips: BankSlipService;
  pix: PixService;
  webhooks: WebhookService;
  /** Per-merchant slots of the streamed conciliation searches. */
  streamSlots: StreamSlots;
  /** Sandbox mode only. */
  sandboxClock?: SandboxClockService;
  /** Sandbox mode only. */
  sandboxReset?: SandboxResetService;
  metrics: GatewayMetrics;
  auth: AuthService;
}
