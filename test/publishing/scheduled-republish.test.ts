import { describe, expect, it } from 'vitest';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { getArticle, updateArticle } from '../../src/articles/service.js';
import { publishArticle, scheduleArticle, unpublishArticle } from '../../src/publishing/publish.js';
import { runCli } from '../helpers/cli.js';
import { TestClock } from '../helpers/clock.js';
import { startDaemon } from '../helpers/daemon.js';
import { poll } from '../helpers/poll.js';
import { seedArticle, seedWorkspace } from '../helpers/seed.js';

describe('a scheduled republish of a live article (issue 40)', () => {
  it('keeps it published and served until its time, then the scheduler publishes the edit; unschedule and unpublish cancel it', async () => {
    const clock = new TestClock();
    const d = await startDaemon({ clock, overrides: { 'scheduler.interval': 20 } });
    const ws = await seedWorkspace(d.app);
    const blog = await generateBlogKey(d.app, ws);
    const served = async (slug: string) => ((await (await fetch(`${d.url}/api/v1/content/articles/${slug}`, { headers: { Authorization: `Bearer ${blog.key}` } })).json()) as { data?: { title: string }; title?: string });
    const a = await seedArticle(d.app, ws, { title: 'Live one' });
    await publishArticle(d.app, ws, a.id);
    await updateArticle(d.app, ws, a.id, { title: 'Live one, revised' });
    const at = new Date(clock.now().getTime() + 3_600_000).toISOString();
    expect(await scheduleArticle(d.app, ws, a.id, at)).toMatchObject({ status: 'published', scheduledAt: at });
    expect(JSON.stringify(await served(a.slug))).toContain('"title":"Live one"');

    clock.advance(3_600_000 + 1_000);
    const done = await poll(() => getArticle(d.app, ws, a.id), (x) => x.scheduledAt === null);
    expect(done).toMatchObject({ status: 'published', publishedRevision: done.revision });
    expect(JSON.stringify(await served(a.slug))).toContain('"title":"Live one, revised"');

    // svc articles unschedule cancels it (the live copy stays); a second time there is nothing to cancel.
    await scheduleArticle(d.app, ws, a.id, new Date(clock.now().getTime() + 3_600_000).toISOString());
    const cli = (args: string[]) => runCli([...args, '--workspace', ws.name], { env: d.env, cwd: d.dir });
    expect(await cli(['articles', 'unschedule', a.slug])).toMatchObject({ code: 0, stdout: `Cancelled the scheduled publish of ${a.slug} (now published)\n` });
    expect(await cli(['articles', 'unschedule', a.slug])).toMatchObject({ code: 1, stderr: expect.stringContaining(`error: Article "${a.slug}" has no scheduled publish`) });

    await scheduleArticle(d.app, ws, a.id, new Date(clock.now().getTime() + 3_600_000).toISOString());
    await unpublishArticle(d.app, ws, a.id);
    expect(await getArticle(d.app, ws, a.id)).toMatchObject({ status: 'draft', scheduledAt: null });
  });
});
