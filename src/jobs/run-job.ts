import type { Clock } from '../clock.js';
import { errorMessage, type ClaimedJob, type FailOutcome, type JobQueue } from './queue.js';
import { RetryLater, type JobHandlers } from './registry.js';

/** pino fits; only the calls we make. */
export interface JobLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export const silentLogger: JobLogger = { info() {}, warn() {}, error() {} };

export type JobOutcome = 'done' | 'rescheduled' | FailOutcome;

export interface JobRunner {
  queue: JobQueue;
  handlers: JobHandlers;
  clock: Clock;
  logger: JobLogger;
}

/**
 * Runs one claimed job to its recorded outcome. The one path shared by the worker and the
 * sandbox clock's advance, so a job behaves the same whichever of them runs it.
 */
export async function runJob(runner: JobRunner, job: ClaimedJob, workerId: string): Promise<JobOutcome> {
  const { queue, handlers, clock, logger } = runner;
  const log = { jobId: job.id, kind: job.kind, attempt: job.attempts };
  try {
    const registered = handlers.get(job.kind);
    if (!registered) throw new Error(`no handler registered for job kind "${job.kind}"`);
    await registered.handler(job.payload, { job, clock });
  } catch (error) {
    if (error instanceof RetryLater) {
      return (await queue.reschedule(job, workerId, error.at)) ? 'rescheduled' : lost(logger, log);
    }
    const outcome = await queue.fail(job, workerId, error);
    // The message only: a stack or the error object could carry payload data into the logs.
    logger.error({ event: 'job.failed', ...log, error: errorMessage(error), outcome }, 'job failed');
    return outcome === 'lost' ? lost(logger, log) : outcome;
  }
  return (await queue.complete(job, workerId)) ? 'done' : lost(logger, log);
}

/** The lease expired while the handler ran and another worker took the job: its record wins. */
function lost(logger: JobLogger, log: object): 'lost' {
  logger.warn(log, 'job lease lost before the outcome was recorded');
  return 'lost';
}
