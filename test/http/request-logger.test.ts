import { Writable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { requestLogger } from '../../src/http/request-logger.js';

/** The app's own pino logger at `level`, writing into `lines`, with its child() calls counted. */
function logger(level: string) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const parent = createLogger(level, sink);
  let children = 0;
  const child = parent.child;
  // Pino's children inherit from their parent, this counter included: it counts every child() call.
  parent.child = function (this: typeof parent, ...args: Parameters<typeof child>) {
    children += 1;
    return child.apply(this, args);
  } as typeof parent.child;
  return { parent: parent as unknown as FastifyBaseLogger, lines, children: () => children };
}

describe("a request's logger", () => {
  it('makes no child logger for lines its level drops', () => {
    const log = logger('warn');
    const request = requestLogger(log.parent, { reqId: 'r-1' }, {});
    request.info({ route: '/v1/payments' }, 'request');
    request.debug('detail');
    expect(log.children()).toBe(0);
    expect(log.lines).toEqual([]);
    expect(request.level).toBe('warn');
  });

  it('writes the lines it keeps with the request id, through one child made at the first of them', () => {
    const log = logger('warn');
    const request = requestLogger(log.parent, { reqId: 'r-2' }, {});
    request.warn({ error: 'database unavailable' }, 'first');
    request.error('second');
    request.info('dropped');
    expect(log.children()).toBe(1);
    expect(log.lines.map((l) => [l.reqId, l.msg])).toEqual([
      ['r-2', 'first'],
      ['r-2', 'second'],
    ]);
  });

  it('keeps redacting what a request logs', () => {
    const log = logger('info');
    const request = requestLogger(log.parent, { reqId: 'r-3' }, {});
    request.info({ body: { cardInfo: { cardNumber: '4111111111111111' } }, password: 'hunter2' }, 'careless');
    expect(JSON.stringify(log.lines)).not.toMatch(/4111111111111111|hunter2/);
    expect(log.lines[0]).toMatchObject({ reqId: 'r-3', password: '[redacted]', msg: 'careless' });
  });

  it('hands child() and a level change to the real child logger', () => {
    const log = logger('warn');
    const request = requestLogger(log.parent, { reqId: 'r-4' }, {});
    request.level = 'info';
    request.info('now kept');
    request.child({ part: 'x' }).info('from a grandchild');
    expect(log.parent.level).toBe('warn');
    expect(log.lines.map((l) => [l.reqId, l.part, l.msg])).toEqual([
      ['r-4', undefined, 'now kept'],
      ['r-4', 'x', 'from a grandchild'],
    ]);
  });
});
