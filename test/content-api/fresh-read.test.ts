import { setImmediate as turn } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FreshRead, retriedAfter } from '../../src/content/delivery.js';

/** A read whose answer the test gives: each call is recorded with the keys it was asked for. */
function scriptedReads() {
  const calls: Array<{ keys: string[]; answer(v: Map<string, number>): void; fail(e: Error): void }> = [];
  const fresh = new FreshRead<string, number>(
    (keys) =>
      new Promise((answer, fail) => {
        calls.push({ keys, answer, fail });
      }),
  );
  return { fresh, calls };
}

describe('FreshRead: the freshness read shared by one event-loop turn', () => {
  it('reads every key of one event-loop turn in one read that starts after the last caller asked', async () => {
    const { fresh, calls } = scriptedReads();
    const a = fresh.get('ws-a');
    const b = fresh.get('ws-b');
    const a2 = fresh.get('ws-a');
    expect(calls).toHaveLength(0); // not before the turn's callers are all in
    await turn();
    expect(calls.map((c) => c.keys)).toEqual([['ws-a', 'ws-b']]);
    calls[0].answer(new Map([['ws-a', 3], ['ws-b', 7]]));
    const [ma, mb, ma2] = await Promise.all([a, b, a2]);
    expect([ma.get('ws-a'), mb.get('ws-b'), ma2.get('ws-a')]).toEqual([3, 7, 3]);
  });

  it('answers a caller that arrived once a read started from a read of its own, started at the end of its turn, not from the one in flight', async () => {
    const { fresh, calls } = scriptedReads();
    const first = fresh.get('ws-a');
    await turn();
    expect(calls).toHaveLength(1);
    let lateAnswered = false;
    const late = fresh.get('ws-a').then((m) => {
      lateAnswered = true;
      return m;
    });
    const later = fresh.get('ws-c');
    await turn();
    expect(calls.map((c) => c.keys), 'the next read does not wait for the one in flight').toEqual([['ws-a'], ['ws-a', 'ws-c']]);
    calls[0].answer(new Map([['ws-a', 1]]));
    expect((await first).get('ws-a')).toBe(1);
    await turn();
    expect(lateAnswered, 'not answered by the read that started before it asked').toBe(false);
    calls[1].answer(new Map([['ws-a', 2]]));
    expect((await late).get('ws-a')).toBe(2);
    expect((await later).has('ws-c'), 'a key the read did not find is absent').toBe(false);
  });

  it('fails the callers whose read failed, and reads again for the next', async () => {
    const { fresh, calls } = scriptedReads();
    const failed = fresh.get('ws-a');
    await turn();
    const next = fresh.get('ws-a');
    calls[0].fail(new Error('database gone'));
    await expect(failed).rejects.toThrow('database gone');
    await turn();
    expect(calls).toHaveLength(2);
    calls[1].answer(new Map([['ws-a', 5]]));
    expect((await next).get('ws-a')).toBe(5);
  });
});

describe('retriedAfter: a read that does not come back', () => {
  const PATIENCE = 100;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function scripted() {
    const calls: Array<{ answer(v: number): void; fail(e: Error): void }> = [];
    const read = () => new Promise<number>((answer, fail) => calls.push({ answer, fail }));
    return { calls, read };
  }

  it('reads again once the first read outlived its patience, and answers from whichever answers first', async () => {
    const { calls, read } = scripted();
    const value = retriedAfter(read, PATIENCE);
    expect(calls).toHaveLength(1);
    vi.advanceTimersByTime(PATIENCE - 1);
    expect(calls, 'within patience').toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(calls).toHaveLength(2);
    calls[1].answer(6);
    expect(await value).toBe(6);
    calls[0].answer(5); // the late answer changes nothing
    expect(await value).toBe(6);
    vi.advanceTimersByTime(10 * PATIENCE);
    expect(calls, 'no read more').toHaveLength(2);
  });

  it('leaves nothing behind a read answered within its patience: no second read, no timer', async () => {
    const { calls, read } = scripted();
    const value = retriedAfter(read, PATIENCE);
    expect(vi.getTimerCount()).toBe(1);
    calls[0].answer(1);
    expect(await value).toBe(1);
    await turn();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(10 * PATIENCE);
    expect(calls).toHaveLength(1);
  });

  it('fails at once with a read that fails at once (a refusing database): no second read', async () => {
    const { calls, read } = scripted();
    const value = retriedAfter(read, PATIENCE);
    calls[0].fail(new Error('connection refused'));
    await expect(value).rejects.toThrow('connection refused');
    await turn();
    vi.advanceTimersByTime(10 * PATIENCE);
    expect(calls).toHaveLength(1);
  });
});
