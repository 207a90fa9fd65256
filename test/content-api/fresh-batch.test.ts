import { setImmediate as turn } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
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

  it('after a burst of a busy daemon (8 callers or more), the next read waits one more turn: the callers of that turn join it', async () => {
    /** Read 1 for `first` callers, one caller waiting during it, read 1 answered, then a caller one turn later: the keys of read 2. */
    const secondRead = async (first: number) => {
      const reads: string[][] = [];
      let answerFirst!: (v: Map<string, number>) => void;
      const batch = new FreshBatch<string, number>((keys) => {
        reads.push(keys);
        if (reads.length === 1) return new Promise((answer) => (answerFirst = answer));
        return Promise.resolve(new Map(keys.map((k) => [k, 2])));
      });
      const firsts = Array.from({ length: first }, () => batch.get('ws-a'));
      await turn();
      expect(reads).toHaveLength(1);
      const waiting = batch.get('ws-a');
      answerFirst(new Map([['ws-a', 1]]));
      await Promise.all(firsts);
      await turn();
      const late = batch.get('ws-b');
      await Promise.all([waiting, late]);
      return reads[1];
    };
    expect(await secondRead(8), 'busy: the late caller joins read 2').toEqual(['ws-a', 'ws-b']);
    expect(await secondRead(1), 'quiet: read 2 started at once, without it').toEqual(['ws-a']);
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

describe('FreshBatch: a read that does not come back', () => {
  const PATIENCE = 100;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('lets the next burst read once the read in flight outlived its patience, and answers the stuck burst from that read too', async () => {
    const calls: Array<{ keys: string[]; answer(v: Map<string, number>): void }> = [];
    const batch = new FreshBatch<string, number>((keys) => new Promise((answer) => calls.push({ keys, answer })), PATIENCE);
    const stuck = batch.get('ws-a');
    await turns(() => calls.length === 1);
    vi.advanceTimersByTime(PATIENCE / 2);
    const waiting = batch.get('ws-b');
    await turn();
    expect(calls, 'within patience the burst waits for the read in flight').toHaveLength(1);
    vi.advanceTimersByTime(PATIENCE / 2);
    await turns(() => calls.length === 2);
    expect(calls[1].keys.sort(), "the stuck burst's keys are read again").toEqual(['ws-a', 'ws-b']);
    calls[1].answer(new Map([['ws-a', 4], ['ws-b', 9]]));
    expect((await stuck).get('ws-a')).toBe(4);
    expect((await waiting).get('ws-b')).toBe(9);
    calls[0].answer(new Map([['ws-a', 3]])); // the late answer changes nothing
    expect((await stuck).get('ws-a')).toBe(4);
  });

  it('reads again for a lone caller once its read outlived its patience, with nobody else asking', async () => {
    const calls: Array<{ keys: string[]; answer(v: Map<string, number>): void }> = [];
    const batch = new FreshBatch<string, number>((keys) => new Promise((answer) => calls.push({ keys, answer })), PATIENCE);
    const lone = batch.get('ws-a');
    await turns(() => calls.length === 1);
    vi.advanceTimersByTime(PATIENCE - 1);
    await turn();
    expect(calls, 'within patience').toHaveLength(1);
    vi.advanceTimersByTime(1);
    await turns(() => calls.length === 2);
    expect(calls[1].keys).toEqual(['ws-a']);
    calls[1].answer(new Map([['ws-a', 6]]));
    expect((await lone).get('ws-a')).toBe(6);
    calls[0].answer(new Map([['ws-a', 5]]));
    await turn();
    vi.advanceTimersByTime(10 * PATIENCE);
    await turn();
    expect(calls, 'every caller answered: no read more').toHaveLength(2);
    expect(vi.getTimerCount(), 'no timer left behind').toBe(0);
  });

  it('leaves nothing behind a read answered within its patience: no second read, no timer', async () => {
    const calls: Array<{ keys: string[]; answer(v: Map<string, number>): void }> = [];
    const batch = new FreshBatch<string, number>((keys) => new Promise((answer) => calls.push({ keys, answer })), PATIENCE);
    const asked = batch.get('ws-a');
    await turns(() => calls.length === 1);
    expect(vi.getTimerCount(), 'the patience timer of the read in flight').toBe(1);
    calls[0].answer(new Map([['ws-a', 1]]));
    expect((await asked).get('ws-a')).toBe(1);
    await turn();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(10 * PATIENCE);
    await turn();
    expect(calls).toHaveLength(1);
  });

  it('runs at most maxReads reads: a burst behind stuck reads waits until one of them ends', async () => {
    const calls: Array<{ keys: string[]; answer(v: Map<string, number>): void; fail(e: Error): void }> = [];
    const batch = new FreshBatch<string, number>((keys) => new Promise((answer, fail) => calls.push({ keys, answer, fail })), PATIENCE, 2);
    void batch.get('ws-a').catch(() => undefined);
    await turns(() => calls.length === 1);
    const second = batch.get('ws-b');
    vi.advanceTimersByTime(PATIENCE);
    await turns(() => calls.length === 2);
    const third = batch.get('ws-c');
    vi.advanceTimersByTime(10 * PATIENCE);
    await turn();
    await turn();
    expect(calls, 'two stuck reads: no third').toHaveLength(2);
    calls[0].fail(new Error('query timeout'));
    await turns(() => calls.length === 3);
    expect(calls[2].keys.sort(), 'the next read starts at once: the other one is past its patience').toEqual(['ws-b', 'ws-c']);
    calls[2].answer(new Map([['ws-b', 1], ['ws-c', 2]]));
    expect((await second).get('ws-b')).toBe(1);
    expect((await third).get('ws-c')).toBe(2);
  });
});

describe('FreshBatch: patience on a loaded machine', () => {
  it('still starts the next read when its timer fires early: one set late in a long turn (a loaded machine)', async () => {
    // Real timers on purpose: Node counts a timer from the event loop's time, read when the turn
    // began, so a timer set after 100 ms of work in one turn fires 100 ms before performance.now()
    // says it is due. The busy wait below is that long turn. Before, the early timer found the read
    // in flight still within its patience and gave up: the burst waited for the stuck read's deadline.
    const patience = 200;
    const calls: Array<{ keys: string[]; answer(v: Map<string, number>): void }> = [];
    const batch = new FreshBatch<string, number>((keys) => new Promise((answer) => calls.push({ keys, answer })), patience);
    void batch.get('ws-a');
    await turn();
    expect(calls).toHaveLength(1);
    const busyUntil = performance.now() + patience / 2;
    while (performance.now() < busyUntil);
    const asked = performance.now();
    const waiting = batch.get('ws-b');
    const outcome = await new Promise<string>((resolve) => {
      const poll = setInterval(() => {
        const waited = performance.now() - asked;
        if (calls.length < 2 && waited < 10 * patience) return;
        clearInterval(poll);
        resolve(calls.length < 2 ? 'no second read' : waited >= patience / 2 - 5 ? 'read after the patience' : 'read too soon');
      }, 5);
    });
    expect(outcome).toBe('read after the patience');
    calls[1].answer(new Map([['ws-b', 2]]));
    expect((await waiting).get('ws-b')).toBe(2);
  });
});
