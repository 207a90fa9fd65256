import { describe, expect, it } from 'vitest';
import { DROPPED_DEFAULTS } from '../../src/lib/metrics.js';
import { contentFixture } from '../content-api/fixture.js';
import { NO_PROMTOOL, hasPromtool, promtoolCheck, promtoolRequired } from '../helpers/promtool.js';

const run = hasPromtool() || promtoolRequired();
if (!run) console.warn(NO_PROMTOOL);

describe.skipIf(!run)('/metrics passes promtool check metrics', () => {
  it('after traffic of every kind, with the Node process figures', async () => {
    const f = await contentFixture({ jobs: false, overrides: { 'content.rateLimitPerMinute': 3, 'metrics.listen': '127.0.0.1:0' } });
    const a = await f.publish();
    await f.api('/articles');
    await f.api(`/articles/${a.slug}`);
    await f.api('/articles', { key: 'svc_blog_wrong' });
    await f.api('/articles');
    await f.api('/articles'); // 429
    const at = (await f.d.http.metricsAddress)!;
    const text = await (await fetch(`http://127.0.0.1:${at.port}/metrics`)).text();
    expect(text).toContain('process_resident_memory_bytes');
    expect(text).toContain('nodejs_active_handles');
    for (const name of DROPPED_DEFAULTS) expect(text).not.toContain(`${name} `);
    const { code, output } = promtoolCheck(text);
    expect(output).toBe('');
    expect(code).toBe(0);
  });
});
