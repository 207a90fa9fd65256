import { describe, expect, it } from 'vitest';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { getArticle } from '../../src/articles/service.js';
import { publishArticle, scheduleArticle } from '../../src/publishing/publish.js';
import { updateWorkspace } from '../../src/workspaces/service.js';
import { runCli } from '../helpers/cli.js';
import { startDaemon } from '../helpers/daemon.js';
import { seedArticle, seedWorkspace } from '../helpers/seed.js';
import { poll } from '../helpers/poll.js';
import { TestClock } from '../helpers/clock.js';
import { schedulerTicks } from '../helpers/ticks.js';


describe('scheduled publish and auto-publish (daemon scheduler)', () => {
  it('publishes a scheduled article once when its time comes, and not before', async () => {
    const clock = new TestClock();
    const d = await startDaemon({ clock, overrides: { 'scheduler.interval': 50 } });
    const ws = await seedWorkspace(d.app);
    const { key } = await generateBlogKey(d.app, ws);
    const get = (path: string) => fetch(`${d.url}/api/v1/content${path}`, { headers: { Authorization: `Bearer ${key}` } });
    const a = await seedArticle(d.app, ws, { title: 'Later' });
    const at = new Date(clock.now().getTime() + 60_000).toISOString();
    // Scheduled through the CLI (another App): the daemon's scheduler picks it up from the database.
    const r = await runCli(['articles', 'schedule', a.slug, '--at', at, '--workspace', ws.name], { env: d.env, cwd: d.dir });
    expect(r.code, r.stderr).toBe(0);
    // Not before: whole ticks that started after the schedule published nothing.
    expect((await schedulerTicks(d.app, 2)).map((t) => t.published)).toEqual([0, 0]);
    expect((await get(`/articles/${a.slug}`)).status).toBe(404);

    clock.advance(61_000);
    const res = await poll(() => get(`/articles/${a.slug}`), (x) => x.status === 200);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(Date.parse(body.data.publishedAt)).toBeGreaterThanOrEqual(Date.parse(at));
    // Once: ticks that started after it was published publish nothing more.
    expect((await schedulerTicks(d.app, 2)).map((t) => t.published)).toEqual([0, 0]);
    const again = (await (await get(`/articles/${a.slug}`)).json()).data;
    expect(again.updatedAt).toBe(body.data.updatedAt);
    expect((await (await get('/articles')).json()).data.total).toBe(1);
  });

  it('publishes an overdue scheduled article on the next tick', async () => {
    const d = await startDaemon({ overrides: { 'scheduler.interval': 200 } });
    const ws = await seedWorkspace(d.app);
    const { key } = await generateBlogKey(d.app, ws);
    const a = await seedArticle(d.app, ws, { title: 'Overdue' });
    await scheduleArticle(d.app, ws, a.id, new Date(Date.now() - 60_000).toISOString(), { allowPast: true });
    const res = await poll(() => fetch(`${d.url}/api/v1/content/articles/${a.slug}?key=${key}`), (x) => x.status === 200);
    expect(res.status).toBe(200);
  });

  it('auto-publishes a new article at once when the workspace has auto-publish on', async () => {
    const d = await startDaemon({ jobs: false });
    const ws = await seedWorkspace(d.app);
    const { key } = await generateBlogKey(d.app, ws);
    const before = await seedArticle(d.app, ws, { title: 'Manual draft' });
    await updateWorkspace(d.app, ws.id, { autoPublish: true });
    const auto = await seedArticle(d.app, ws, { title: 'Automatic' });
    expect(auto.status).toBe('published');
    const page = await (await fetch(`${d.url}/api/v1/content/articles`, { headers: { 'X-Api-Key': key } })).json();
    expect(page.data.articles.map((x: any) => x.id)).toEqual([auto.id]);
    expect(page.data.articles.map((x: any) => x.id)).not.toContain(before.id);
  });

  it('leaves drafts and articles published only to the webhook out of the content API', async () => {
    const d = await startDaemon({ jobs: false });
    const ws = await seedWorkspace(d.app);
    const cli = (args: string[]) => runCli([...args, '--workspace', ws.name], { env: d.env, cwd: d.dir });
    const a = await seedArticle(d.app, ws, { title: 'Webhook only' });
    // Without a headless connector, publishing there is refused.
    let r = await cli(['articles', 'publish', a.slug, '--to', 'headless']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no enabled headless connector/);
    r = await cli(['webhook', 'set', '--url', 'http://127.0.0.1:9/hook']);
    expect(r.code, r.stderr).toBe(0);
    r = await cli(['articles', 'publish', a.slug]);
    expect(r.code, r.stderr).toBe(0);
    const { key } = await generateBlogKey(d.app, ws);
    const both = await seedArticle(d.app, ws, { title: 'Everywhere' });
    await seedArticle(d.app, ws, { title: 'Still a draft' });
    r = await cli(['articles', 'publish', both.slug]);
    expect(r.code, r.stderr).toBe(0);
    const page = await (await fetch(`${d.url}/api/v1/content/articles?key=${key}`)).json();
    expect(page.data.articles.map((x: any) => x.slug)).toEqual([both.slug]);
    expect((await fetch(`${d.url}/api/v1/content/articles/${a.slug}?key=${key}`)).status).toBe(404);
  });

  it('the scheduler claims only what is still due: an article moved to a later time after the scheduler read it is not published early', async () => {
    const d = await startDaemon({ jobs: false });
    const ws = await seedWorkspace(d.app);
    await generateBlogKey(d.app, ws); // somewhere to publish to
    const a = await seedArticle(d.app, ws, { title: 'Moved later' });
    // The scheduler read it as due (dueScheduledRows), then someone moved it to tomorrow.
    await scheduleArticle(d.app, ws, a.id, new Date(d.app.clock.now().getTime() + 86_400_000).toISOString());
    expect(await publishArticle(d.app, ws, a.id, { onlyIfScheduled: true })).toBeNull();
    expect((await getArticle(d.app, ws, a.id)).status).toBe('scheduled');
    // Once due, the same claim publishes it.
    await scheduleArticle(d.app, ws, a.id, new Date(d.app.clock.now().getTime() - 1_000).toISOString(), { allowPast: true });
    expect(await publishArticle(d.app, ws, a.id, { onlyIfScheduled: true })).not.toBeNull();
    expect((await getArticle(d.app, ws, a.id)).status).toBe('published');
  });
});
