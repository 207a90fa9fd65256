import { describe, expect, it } from 'vitest';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { publishArticle, unpublishArticle } from '../../src/publishing/publish.js';
import { TestClock } from '../helpers/clock.js';
import { startDaemon } from '../helpers/daemon.js';
import { seedArticle, seedWorkspace } from '../helpers/seed.js';

describe('content snapshots take time from the injected clock (issue 17)', () => {
  it('publishing and unpublishing stamp the sitemap lastmod and Last-Modified with the clock, not the machine time', async () => {
    const clock = new TestClock();
    const d = await startDaemon({ clock, jobs: false });
    const ws = await seedWorkspace(d.app);
    const { key } = await generateBlogKey(d.app, ws);
    const sitemap = async () => {
      const res = await fetch(`${d.url}/api/v1/content/sitemap`, { headers: { Authorization: `Bearer ${key}` } });
      return { lastModified: Date.parse(res.headers.get('last-modified')!), data: (await res.json()).data };
    };
    const a = await seedArticle(d.app, ws, { title: 'Stays', secondaryKeywords: ['shared'] });
    const b = await seedArticle(d.app, ws, { title: 'Goes', secondaryKeywords: ['shared'] });
    clock.advance(365 * 86_400_000);
    await publishArticle(d.app, ws, a.id);
    await publishArticle(d.app, ws, b.id);
    clock.advance(86_400_000);
    const removedAt = clock.now().getTime();
    await unpublishArticle(d.app, ws, b.id);
    const { lastModified, data } = await sitemap();
    // Whole seconds in HTTP dates; the removal happened at the clock's time, a year and a day from now.
    expect(Math.abs(lastModified - removedAt)).toBeLessThan(2000);
    const shared = data.tags.find((t: { slug: string }) => t.slug === 'shared');
    expect(Math.abs(Date.parse(shared.lastmod) - removedAt)).toBeLessThan(1000);
    expect(Date.parse(data.categories[0].lastmod)).toBeGreaterThanOrEqual(removedAt);
  });
});
