import { describe, expect, it } from 'vitest';
import { SearchSlots } from '../../src/content/search-slots.js';

/** A search that runs until its test lets it end. */
function held() {
  let end!: () => void;
  const done = new Promise<void>((r) => (end = r));
  return { work: () => done, end };
}

describe('SearchSlots: a few searches per key at once, a bounded wait, then 429', () => {
  it('runs at most perKey of a key, lets another key use the rest, and refuses a waiter after the wait with Retry-After', async () => {
    const slots = new SearchSlots(3, 2, 20);
    const [a1, a2, b1] = [held(), held(), held()];
    const running = [slots.run('a', a1.work), slots.run('a', a2.work), slots.run('b', b1.work)];
    const refused = await slots.run('a', async () => 'ran').catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'rate_limited', status: 429, details: { retryAfterSeconds: 1 } });
    // A waiter gets the slot its key frees.
    const waiting = slots.run('a', async () => 'ran after a1');
    a1.end();
    expect(await waiting).toBe('ran after a1');
    a2.end();
    b1.end();
    await Promise.all(running);
  });

  it('refuses at once when the key already has as many waiting as a whole wait could serve', async () => {
    const slots = new SearchSlots(1, 1, 10_000);
    const h = held();
    const first = slots.run('a', h.work);
    const waiters = Array.from({ length: 4 }, () => slots.run('a', async () => 'ran'));
    await expect(slots.run('a', async () => 'ran')).rejects.toMatchObject({ code: 'rate_limited' });
    h.end();
    await first;
    expect(await Promise.all(waiters)).toEqual(['ran', 'ran', 'ran', 'ran']);
  });
});
