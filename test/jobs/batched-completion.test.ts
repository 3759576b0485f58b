import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CompletionBatch } from '../../src/jobs/completion-batch.js';
import { JobQueue } from '../../src/jobs/queue.js';
import { JobHandlers } from '../../src/jobs/registry.js';
import { freshDatabase, testDialect, type TestDatabase } from '../support/database.js';
import { ManualClock } from './manual-clock.js';

/**
 * Job completions recorded in batches (issue 15): one statement for the completions that end
 * together, each still fenced by its own claim (worker id and attempts count).
 */
describe(`batched job completion (${testDialect})`, () => {
  let database: TestDatabase;
  let clock: ManualClock;
  let queue: JobQueue;

  beforeEach(async () => {
    database = await freshDatabase();
    clock = new ManualClock();
    queue = new JobQueue(database, clock, new JobHandlers());
  });
  afterEach(() => database.close());

  const status = async (id: number) => (await database.db.selectFrom('jobs').select(['status', 'locked_by']).where('id', '=', id).executeTakeFirstOrThrow());
  const enqueue = async (n: number) => {
    const ids: number[] = [];
    for (let i = 0; i < n; i++) ids.push((await queue.enqueue(database.db, { kind: 'k', payload: { i } }))!);
    return ids;
  };

  it('completeMany marks every job of the claim done in one statement', async () => {
    const ids = await enqueue(5);
    const jobs = await queue.claim('w', { limit: 5 });
    const done = await queue.completeMany(jobs, 'w');
    expect([...done].sort((a, b) => a - b)).toEqual(ids);
    for (const id of ids) expect((await status(id)).status).toBe('done');
    // Already done: a second batch completes nothing.
    expect((await queue.completeMany(jobs, 'w')).size).toBe(0);
  });

  it('completeMany leaves a job whose lease was lost to its new holder, and completes the rest', async () => {
    const [a, b, c] = await enqueue(3);
    const mine = await queue.claim('w', { limit: 3, leaseMs: 1000 });
    // b's lease ends and another worker retakes it (the heartbeat did not renew it).
    clock.advanceWall(1001);
    await queue.renewLeases('w', [a, c], 60_000);
    const [retaken] = await queue.claim('other', { limit: 3 });
    expect(retaken.id).toBe(b);

    const done = await queue.completeMany(mine, 'w');
    expect([...done].sort((x, y) => x - y)).toEqual([a, c]);
    expect(await status(b)).toMatchObject({ status: 'running', locked_by: 'other' });
    expect(await queue.complete(retaken, 'other')).toBe(true);
  });

  it('completeMany fences by claim: an old claim of the same worker does not finish the newer one', async () => {
    const [id] = await enqueue(1);
    const [old] = await queue.claim('same', { limit: 1, leaseMs: 1000 });
    clock.advanceWall(1001);
    const [fresh] = await queue.claim('same', { limit: 1 });
    expect((await queue.completeMany([old], 'same')).size).toBe(0);
    expect((await status(id)).status).toBe('running');
    expect([...(await queue.completeMany([fresh], 'same'))]).toEqual([id]);
  });

  it('CompletionBatch: completions asked together share one statement; a lost one is answered false', async () => {
    const [a, b, c] = await enqueue(3);
    const mine = await queue.claim('w', { limit: 3, leaseMs: 1000 });
    clock.advanceWall(1001);
    await queue.renewLeases('w', [a, c], 60_000);
    await queue.claim('other', { limit: 3 });

    const many = vi.spyOn(queue, 'completeMany');
    const single = vi.spyOn(queue, 'complete');
    const batch = new CompletionBatch(queue, 'w');
    const answers = await Promise.all(mine.map((job) => batch.complete(job, 'w')));
    expect(answers).toEqual(mine.map((job) => job.id !== b));
    expect(many).toHaveBeenCalledTimes(1);
    expect(single).not.toHaveBeenCalled();
    expect((await status(a)).status).toBe('done');
    expect((await status(c)).status).toBe('done');
    expect(await status(b)).toMatchObject({ status: 'running', locked_by: 'other' });
  });

  it('CompletionBatch: a database error reaches every completion of the batch (none is reported done)', async () => {
    await enqueue(2);
    const mine = await queue.claim('w', { limit: 2 });
    vi.spyOn(queue, 'completeMany').mockRejectedValueOnce(new Error('database down'));
    const batch = new CompletionBatch(queue, 'w');
    const answers = await Promise.allSettled(mine.map((job) => batch.complete(job, 'w')));
    expect(answers.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    for (const job of mine) expect((await status(job.id)).status).toBe('running');
  });
});
