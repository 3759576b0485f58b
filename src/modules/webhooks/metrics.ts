import { Counter, Histogram, type Metric } from 'prom-client';

/**
 * What an operator watches of deliveries: attempts by channel and outcome (a receiver that
 * keeps failing shows as `retry`), and how long receivers take. Created unregistered: the
 * app's /metrics registry adopts them (tests build many apps in one process).
 */
export class DeliveryMetrics {
  readonly attempts = new Counter({
    name: 'webhook_attempts_total',
    help: 'Webhook and callback delivery attempts by channel and outcome (Delivered, Rejected, retry, Exhausted)',
    labelNames: ['channel', 'outcome'],
    registers: [],
  });
  readonly duration = new Histogram({
    name: 'webhook_attempt_duration_seconds',
    help: 'Time from connect to the last byte of the receiver answer (or the failure)',
    labelNames: ['channel'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [],
  });

  observe(channel: string, outcome: string, durationMs: number): void {
    this.attempts.inc({ channel, outcome });
    this.duration.observe({ channel }, durationMs / 1000);
  }

  all(): Metric[] {
    return [this.attempts, this.duration];
  }
}
