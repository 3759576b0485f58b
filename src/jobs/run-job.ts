import type { Clock } from '../clock.js';
import { errorMessage, type ClaimedJob, type FailOutcome, type JobQueue } from './queue.js';
import { RetryLater, type JobHandlers, type JobResult } from './registry.js';

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
  try {
    const registered = handlers.get(job.kind);
    if (!registered) throw new Error(`no handler registered for job kind "${job.kind}"`);
    await registered.handler(job.payload, { job, clock });
  } catch (error) {
    return recordFailure(runner, job, workerId, error);
  }
  return (await queue.complete(job, workerId)) ? 'done' : lost(logger, logOf(job));
}

/**
 * Runs jobs of one batch kind (JobHandlers.registerBatch) through one call of its handler and
 * records each outcome: the done ones completed in one statement, the others as runJob would.
 * A handler that throws fails every job of the batch.
 */
export async function runJobBatch(runner: JobRunner, jobs: ClaimedJob[], workerId: string): Promise<JobOutcome[]> {
  if (jobs.length === 0) return [];
  const batch = runner.handlers.batchOf(jobs[0].kind);
  if (!batch) return Promise.all(jobs.map((job) => runJob(runner, job, workerId)));
  let results: JobResult[];
  try {
    results = await batch.handler(jobs.map((job) => job.payload), { jobs, clock: runner.clock });
    if (results.length !== jobs.length) throw new Error(`the batch handler of "${jobs[0].kind}" answered ${results.length} results for ${jobs.length} jobs`);
  } catch (error) {
    results = jobs.map(() => (error instanceof Error ? error : new Error(String(error))));
  }
  const completed = await runner.queue.completeMany(jobs.filter((_, i) => results[i] === undefined), workerId);
  return Promise.all(
    jobs.map(async (job, i): Promise<JobOutcome> => {
      const result = results[i];
      if (result !== undefined) return recordFailure(runner, job, workerId, result);
      return completed.has(job.id) ? 'done' : lost(runner.logger, logOf(job));
    }),
  );
}

/** A handler's error: RetryLater puts the job back for its time, anything else is a failed attempt. */
async function recordFailure(runner: JobRunner, job: ClaimedJob, workerId: string, error: unknown): Promise<JobOutcome> {
  const { queue, logger } = runner;
  const log = logOf(job);
  if (error instanceof RetryLater) {
    return (await queue.reschedule(job, workerId, error.at)) ? 'rescheduled' : lost(logger, log);
  }
  const outcome = await queue.fail(job, workerId, error);
  // The message only: a stack or the error object could carry payload data into the logs.
  logger.error({ event: 'job.failed', ...log, error: errorMessage(error), outcome }, 'job failed');
  return outcome === 'lost' ? lost(logger, log) : outcome;
}

const logOf = (job: ClaimedJob) => ({ jobId: job.id, kind: job.kind, attempt: job.attempts });

/** The lease expired while the handler ran and another worker took the job: its record wins. */
function lost(logger: JobLogger, log: object): 'lost' {
  logger.warn(log, 'job lease lost before the outcome was recorded');
  return 'lost';
}
