import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import { researchKeywords } from '../../src/keywords/research.js';
import { createLogger } from '../../src/lib/log.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import { getUsage } from '../../src/workspaces/usage.js';
import { initialised } from '../cli/sandbox.js';
import { BIN, spawnCli } from '../helpers/cli.js';
import { TestClock } from '../helpers/clock.js';
import { beforeExit, exitOf } from '../helpers/settle.js';
import { startFakeDataForSeo } from './fake-dataforseo.js';

// A lookup reserves its credits before calling the provider. When the process making it is
// killed meanwhile, the reservation stays pending; the next lookup of the workspace, once no
// lookup could still be running (2 x keywords.dataforseo.timeout + 1 min), gives it back.
// Credits are counted per calendar month: the children's Date and the test's clock both read
// mid-month (TestClock.midMonth), so the month they spend in is the month read back.
describe('a lookup whose process is killed during the provider call', () => {
  it('keeps its credits reserved while it could be running, and gives them back afterwards', async () => {
    const b = await initialised();
    const fake = await startFakeDataForSeo();
    const env = { ...b.env, ...fake.env, SVC_KEYWORDS_DATAFORSEO_TIMEOUT: '60s' };
    const clock = TestClock.midMonth();
    fake.hold();
    const child = spawn(process.execPath, [BIN, 'keywords', 'lookup', 'slow keyword', 'another one'], {
      cwd: b.dir,
      env: { PATH: process.env.PATH ?? '', CI: 'true', ...env, ...clock.childEnv() },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    // volume, difficulty and intent: the reservation is committed before them
    await beforeExit(fake.received(3), child, 'the lookup calling the provider three times', () => stderr);
    child.kill('SIGKILL');
    await exitOf(child);
    fake.release();

    const app = await createApp({ config: loadConfig({ env, cwd: b.dir }), clock, log: createLogger('silent') });
    try {
      const ws = await getWorkspace(app, b.workspace.id);
      const used = async () => (await getUsage(app, ws)).find((u) => u.kind === 'keywords')!.used;
      expect(await used()).toBe(2);
      // Two minutes later the killed lookup could still be waiting for the provider: kept.
      clock.advance(2 * 60_000);
      await researchKeywords(app, ws, { keywords: ['quick one'] });
      expect(await used()).toBe(3);
      // After 2 x 60 s + 1 min it cannot be: the next lookup gives its 2 credits back.
      clock.advance(60_000 + 1000);
      await researchKeywords(app, ws, { keywords: ['quick two'] });
      expect(await used()).toBe(2);
      const lookups = await app.db('keyword_lookups').orderBy('created_at').select('status', 'credits');
      expect(lookups).toEqual([
        { status: 'abandoned', credits: 2 },
        { status: 'done', credits: 1 },
        { status: 'done', credits: 1 },
      ]);
    } finally {
      await app.close();
    }
  });

  it('several CLI processes looking up at once spend no more than the allowance', async () => {
    const b = await initialised();
    const fake = await startFakeDataForSeo();
    const env = { ...b.env, ...fake.env, ...TestClock.midMonth().childEnv() };
    await b.json(['workspaces', 'set', '--allowance', 'keywords=4']);
    const runs = await Promise.all([1, 2, 3].map((i) => spawnCli(['keywords', 'lookup', `first ${i}`, `second ${i}`, '--json'], { cwd: b.dir, env })));
    const ok = runs.filter((r) => r.code === 0);
    const refused = runs.filter((r) => r.code !== 0);
    expect(ok).toHaveLength(2);
    expect(refused).toHaveLength(1);
    expect(refused[0].json()).toMatchObject({ error: { code: 'credits_exhausted' } });
    expect(fake.volumeKeywords()).toHaveLength(4);
    const shown = await spawnCli(['workspaces', 'show', '--json'], { cwd: b.dir, env });
    expect(shown.code, shown.stderr).toBe(0);
    const show = shown.json();
    expect(show.usage.find((u: any) => u.kind === 'keywords')).toMatchObject({ used: 4, allowed: 4 });
  });
});
