import { describe, expect, it } from 'vitest';
import { groupCommit } from '../../src/webhooks/group-commit.js';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
/** `p` settled within `ms`, else 'pending' (a wait that never ends fails the test instead of hanging it). */
const within = <T>(p: Promise<T>, ms: number) => Promise.race([p.then(() => 'done' as const), new Promise<'pending'>((r) => setTimeout(() => r('pending'), ms))]);

// The worker's group commit (webhooks/worker.ts records attempts through it): answers that come
// while other attempts are in flight share one commit instead of paying a statement each.
describe('groupCommit with gathering', () => {
  const recorder = () => {
    const batches: string[][] = [];
    return { batches, flush: async (items: string[]) => void batches.push(items) };
  };

  it('waits for the items on their way, answers read over several turns making one batch', async () => {
    const r = recorder();
    let coming = 3;
    const add = groupCommit(r.flush, { coming: () => coming, size: 16, waitMs: 60_000 });
    const all: Array<Promise<void>> = [];
    for (const item of ['a', 'b', 'c', 'd']) {
      coming = 3 - all.length; // 'd' is the last on its way
      all.push(add(item));
      await nextTurn();
      await nextTurn();
    }
    expect(await within(Promise.all(all), 5_000)).toBe('done');
    expect(r.batches).toEqual([['a', 'b', 'c', 'd']]); // without gathering: [['a'], ['b'], ['c'], ['d']]
  });

  it('does not wait when nothing is on its way, nor once the batch is full', async () => {
    const lone = recorder();
    const addLone = groupCommit(lone.flush, { coming: () => 0, size: 16, waitMs: 60_000 });
    expect(await within(addLone('x'), 5_000)).toBe('done');
    expect(lone.batches).toEqual([['x']]);

    const full = recorder();
    const addFull = groupCommit(full.flush, { coming: () => 5, size: 2, waitMs: 60_000 });
    const first = addFull('a');
    await nextTurn();
    expect(await within(Promise.all([first, addFull('b')]), 5_000)).toBe('done');
    expect(full.batches).toEqual([['a', 'b']]);
  });

  it('waits at most waitMs for items that do not come', async () => {
    const r = recorder();
    const add = groupCommit(r.flush, { coming: () => 1, size: 16, waitMs: 20 });
    expect(await within(add('a'), 5_000)).toBe('done');
    expect(r.batches).toEqual([['a']]);
  });

  it('items added while a batch is being flushed make up the next one', async () => {
    const batches: string[][] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const add = groupCommit<string>(async (items) => {
      batches.push(items);
      if (batches.length === 1) await held;
    });
    const first = add('a');
    await nextTurn();
    const later = [add('b'), add('c')];
    release();
    expect(await within(Promise.all([first, ...later]), 5_000)).toBe('done');
    expect(batches).toEqual([['a'], ['b', 'c']]);
  });
});
