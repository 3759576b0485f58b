import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { JobQueue } from '../../src/jobs/queue.js';
import { JobHandlers } from '../../src/jobs/registry.js';
import { runJob, silentLogger } from '../../src/jobs/run-job.js';
import { freshDatabase, testDialect, type TestDatabase } from '../support/database.js';
import { ManualClock } from './manual-clock.js';

/**
 * A handler may mark its job done inside its own business transaction (JobRunContext.completeIn,
 * issue 15: the billing charge's one transaction): the job and the work commit or roll back
 * together, and no completion transaction follows.
 */
describe(`job completed in the handler's transaction (${testDialect})`, () => {
  let database: TestDatabase;
  let clock: ManualClock;
  let handlers: JobHandlers;
  let queue: JobQueue;

  beforeEach(async () => {
    database = await freshDatabase();
    clock = new ManualClock();
    handlers = new JobHandlers();
    queue = new JobQueue(database, clock, handlers);
  });
  afterEach(() => database.close());

  const row = async (id: number) => database.db.selectFrom('jobs').select(['status', 'locked_by']).where('id', '=', id).executeTakeFirstOrThrow();
  const settings = async () => (await database.db.selectFrom('settings').select('key').where('key', 'like', 'cin-%').execute()).map((r) => r.key);
  const claimOne = async () => (await queue.claim('w', { limit: 1, dueBy: clock.now(), leaseMs: 60_000 }))[0];

  it('commits the job done with the work, and runs no completion of its own after', async () => {
    handlers.register('k', async (_payload, run) => {
      await database.db.transaction().execute(async (trx) => {
        await trx.insertInto('settings').values({ key: 'cin-work', value: '1' }).execute();
        expect(await run.completeIn(trx)).toBe(true);
      });
    });
    const id = (await queue.enqueue(database.db, { kind: 'k', payload: {} }))!;
    const job = await claimOne();
    const complete = vi.spyOn(queue, 'complete');
    expect(await runJob({ queue, handlers, clock, logger: silentLogger }, job, 'w')).toBe('done');
    // Once, with the handler's transaction: not again on its own.
    expect(complete).toHaveBeenCalledTimes(1);
    expect(complete.mock.calls[0][2]).toBeDefined();
    expect(await row(id)).toEqual({ status: 'done', locked_by: 'w' });
    expect(await settings()).toEqual(['cin-work']);
  });

  it('rolls the completion back with the work: the job is failed and retried, not done', async () => {
    handlers.register('k', async (_payload, run) => {
      await database.db.transaction().execute(async (trx) => {
        await trx.insertInto('settings').values({ key: 'cin-lost', value: '1' }).execute();
        await run.completeIn(trx);
        throw new Error('the last write failed');
      });
    });
    const id = (await queue.enqueue(database.db, { kind: 'k', payload: {} }))!;
    const outcome = await runJob({ queue, handlers, clock, logger: silentLogger }, await claimOne(), 'w');
    expect(outcome).toBe('retry');
    expect((await row(id)).status).toBe('pending');
    expect(await settings()).toEqual([]);
  });

  it('answers lost when the run no longer holds the job, and the work still commits (it is fenced by its own rows)', async () => {
    handlers.register('k', async (_payload, run) => {
      await database.db.transaction().execute(async (trx) => {
        await trx.insertInto('settings').values({ key: 'cin-late', value: '1' }).execute();
        expect(await run.completeIn(trx)).toBe(false);
      });
    });
    const id = (await queue.enqueue(database.db, { kind: 'k', payload: {} }))!;
    const job = await claimOne();
    // Another worker took the job over meanwhile.
    await database.db.updateTable('jobs').set({ locked_by: 'other' }).where('id', '=', id).execute();
    expect(await runJob({ queue, handlers, clock, logger: silentLogger }, job, 'w')).toBe('lost');
    expect(await row(id)).toEqual({ status: 'running', locked_by: 'other' });
    expect(await settings()).toEqual(['cin-late']);
  });
});
