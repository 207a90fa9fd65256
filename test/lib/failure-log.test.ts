import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { internalError, unavailable } from '../../src/errors.js';
import { logFailure } from '../../src/lib/failure-log.js';
import { createLogger } from '../../src/lib/log.js';
import { TestClock } from '../helpers/clock.js';

function reporter() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  return { lines, app: { log: createLogger('info', sink as unknown as NodeJS.WritableStream), clock: new TestClock() } };
}

describe('logFailure', () => {
  it('an outage answered 503 on every request is one warning per dependency every 10 s, counting the requests; a bug is logged each time with its stack', () => {
    const { lines, app } = reporter();
    const down = unavailable('database', 'The database did not answer in time');
    for (let i = 0; i < 50; i++) logFailure(app, down, down, `req-${i}`, 'request failed');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, dependency: 'database', failures: 1, requestId: 'req-0' });
    app.clock.advance(10_000);
    logFailure(app, down, down, 'req-50', 'request failed');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ level: 40, failures: 50 });
    const bug = internalError('boom', new Error('boom'));
    logFailure(app, bug, bug, 'req-x', 'request failed');
    logFailure(app, bug, bug, 'req-y', 'request failed');
    expect(lines.slice(2).map((l) => [l.level, l.requestId])).toEqual([
      [50, 'req-x'],
      [50, 'req-y'],
    ]);
  });
});
