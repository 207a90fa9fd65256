import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import { researchKeywords } from '../../src/keywords/research.js';
import { createLogger } from '../../src/lib/log.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import { getUsage } from '../../src/workspaces/usage.js';
import { initialised } from '../cli/sandbox.js';
import { TestClock } from '../helpers/clock.js';
import { startFakeDataForSeo } from './fake-dataforseo.js';

// Issue 22: a lookup that outlived its abandonment window had its credits given back by the next
// lookup, then stored its results anyway (completeLookup ignored that its settle found nothing
// pending): results for free.
describe('a lookup that outlives its abandonment window', () => {
  it('keeps no results once its credits were given back, and says so', async () => {
    const b = await initialised();
    const fake = await startFakeDataForSeo();
    const env = { ...b.env, ...fake.env, SVC_KEYWORDS_DATAFORSEO_TIMEOUT: '60s' };
    const clock = TestClock.midMonth();
    const app = await createApp({ config: loadConfig({ env, cwd: b.dir }), clock, log: createLogger('silent') });
    try {
      const ws = await getWorkspace(app, b.workspace.id);
      const used = async () => (await getUsage(app, ws)).find((u) => u.kind === 'keywords')!.used;
      fake.hold();
      const slow = researchKeywords(app, ws, { keywords: ['slow keyword', 'another one'] });
      const outcome = slow.then(
        () => 'stored',
        (err: { code?: string; message: string }) => err,
      );
      await fake.received(3);
      expect(await used()).toBe(2);
      // Past 2 x 60 s + 1 min the next lookup takes the slow one for abandoned and gives its 2 back.
      clock.advance(3 * 60_000 + 1000);
      const next = researchKeywords(app, ws, { keywords: ['quick one'] });
      await fake.received(6);
      fake.release();
      await next;
      const err = await outcome;
      expect(err).toMatchObject({ code: 'lookup_abandoned' });
      expect((err as Error).message).toMatch(/took longer than .* No keyword lookup credit was spent\./);
      expect(await used()).toBe(1);
      const kept = await app.db('keywords').where({ workspace_id: ws.id }).pluck('normalized');
      expect(kept).not.toContain('slow keyword');
      expect(kept).toContain('quick one');
      expect(await app.db('keyword_lookups').orderBy('created_at').pluck('status')).toEqual(['abandoned', 'done']);
    } finally {
      await app.close();
    }
  });
});
