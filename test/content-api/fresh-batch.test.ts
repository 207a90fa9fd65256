import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { FreshBatch } from '../../src/content/coalesce.js';

/** A read whose answer the test gives: each call is recorded with the keys it was asked for. */
function scriptedReads() {
  const calls: Array<{ keys: string[]; waitedMs: number; answer(v: Map<string, number>): void; fail(e: Error): void }> = [];
  const batch = new FreshBatch<string, number>(
    (keys, waitedMs) =>
      new Promise((answer, fail) => {
        calls.push({ keys, waitedMs, answer, fail });
      }),
  );
  return { batch, calls };
}

/** Event-loop turns until `done` (the next read starts in the turn after the previous one ended). */
async function turns(done: () => boolean): Promise<void> {
  for (let i = 0; i < 10 && !done(); i++) await turn();
  expect(done()).toBe(true);
}

describe('FreshBatch: the freshness read shared by a burst', () => {
  it('reads every key of one event-loop turn in one read that starts after the last caller asked', async () => {
    const { batch, calls } = scriptedReads();
    const a = batch.get('ws-a');
    const b = batch.get('ws-b');
    const a2 = batch.get('ws-a');
    expect(calls).toHaveLength(0); // not before the turn's callers are all in
    await turn();
    expect(calls.map((c) => c.keys)).toEqual([['ws-a', 'ws-b']]);
    expect(calls[0].waitedMs).toBeGreaterThanOrEqual(0);
    calls[0].answer(new Map([['ws-a', 3], ['ws-b', 7]]));
    const [ma, mb, ma2] = await Promise.all([a, b, a2]);
    expect([ma.get('ws-a'), mb.get('ws-b'), ma2.get('ws-a')]).toEqual([3, 7, 3]);
  });

  it('answers a caller that arrived during a read from the next read, started only once that one ended', async () => {
    const { batch, calls } = scriptedReads();
    const first = batch.get('ws-a');
    await turn();
    expect(calls).toHaveLength(1);
    let lateAnswered = false;
    const late = batch.get('ws-a').then((m) => {
      lateAnswered = true;
      return m;
    });
    const later = batch.get('ws-c');
    await turn();
    await turn();
    expect(calls, 'one read in flight at a time').toHaveLength(1);
    calls[0].answer(new Map([['ws-a', 1]]));
    expect((await first).get('ws-a')).toBe(1);
    expect(lateAnswered, 'not answered by the read that started before it asked').toBe(false);
    await turns(() => calls.length === 2);
    expect(calls.map((c) => c.keys)).toEqual([['ws-a'], ['ws-a', 'ws-c']]);
    calls[1].answer(new Map([['ws-a', 2]]));
    expect((await late).get('ws-a')).toBe(2);
    expect((await later).has('ws-c'), 'a key the read did not find is absent').toBe(false);
  });

  it('fails the burst whose read failed, and reads again for the next', async () => {
    const { batch, calls } = scriptedReads();
    const failed = batch.get('ws-a');
    await turn();
    const next = batch.get('ws-a');
    calls[0].fail(new Error('database gone'));
    await expect(failed).rejects.toThrow('database gone');
    await turns(() => calls.length === 2);
    calls[1].answer(new Map([['ws-a', 5]]));
    expect((await next).get('ws-a')).toBe(5);
  });
});
