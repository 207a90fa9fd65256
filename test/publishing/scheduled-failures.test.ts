import { describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/api-keys.js';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { getArticle } from '../../src/articles/service.js';
import { scheduleArticle } from '../../src/publishing/publish.js';
import { TestClock } from '../helpers/clock.js';
import { runCli } from '../helpers/cli.js';
import { startDaemon } from '../helpers/daemon.js';
import { seedArticle, seedUser, seedWorkspace } from '../helpers/seed.js';
import { connect } from '../mcp/helpers.js';
import { poll } from '../helpers/poll.js';
import { schedulerTicks } from '../helpers/ticks.js';


describe('a scheduled publish that fails (issue 11)', () => {
  it('stays scheduled with the error on the article, shown by show, list, doctor and the MCP tools, and is retried later', async () => {
    const clock = new TestClock();
    const d = await startDaemon({ clock, overrides: { 'scheduler.interval': 20 } });
    const ws = await seedWorkspace(d.app);
    const cli = (args: string[]) => runCli([...args, '--workspace', ws.name], { env: d.env, cwd: d.dir });
    const a = await seedArticle(d.app, ws, { title: 'Due soon' });
    // Nowhere to publish to yet: the scheduler's publish fails.
    await scheduleArticle(d.app, ws, a.id, new Date(clock.now().getTime() - 1000).toISOString(), { allowPast: true });
    const failed = await poll(() => getArticle(d.app, ws, a.id), (x) => x.publishError !== null);
    expect(failed).toMatchObject({ status: 'scheduled', publishError: { message: `Workspace ${ws.name} has nowhere to publish to`, failures: 1 } });
    const { at, retryAt } = failed.publishError!;
    expect(Date.parse(retryAt!) - Date.parse(at)).toBe(60_000);

    const show = await cli(['articles', 'show', a.slug]);
    expect(show.stdout).toContain(`  FAILED:      scheduled publish failed at ${at}: Workspace ${ws.name} has nowhere to publish to; tried again at ${retryAt}\n`);
    const list = await cli(['articles', 'list']);
    expect(list.stdout).toMatch(/due-soon\s+scheduled \(publish failed\)/);
    expect(list.stdout).toContain(`1 scheduled publish failed; svc articles show due-soon says why`);
    const doctor = await runCli(['doctor'], { env: d.env, cwd: d.dir });
    expect(doctor.code).toBe(1);
    expect(doctor.stderr).toContain(`FAIL  scheduled article due-soon of ${ws.name}: scheduled publish failed at ${at}: Workspace ${ws.name} has nowhere to publish to`);
    const admin = await seedUser(d.app, ws, 'admin');
    const agent = await connect(d, (await createApiKey(d.app, { workspaceId: ws.id, userId: admin.id, name: 'agent', scopes: ['read', 'publish'] })).key);
    expect((await agent.call('get_article', { id: a.id })).text).toContain(`Attention: scheduled publish failed at ${at}`);
    const listed = await agent.call('list_articles', {});
    expect(listed.text).toContain('[scheduled, publish failed] slug: due-soon');
    expect((listed.structuredContent as any).articles[0].publishError).toContain('has nowhere to publish to');

    // Fixed now, but not tried again before its retry time: ticks pass and nothing changes.
    const { key } = await generateBlogKey(d.app, ws);
    expect((await schedulerTicks(d.app, 2)).map((t) => t.published)).toEqual([0, 0]);
    expect((await getArticle(d.app, ws, a.id)).publishError?.failures).toBe(1);
    clock.advance(61_000);
    const done = await poll(() => getArticle(d.app, ws, a.id), (x) => x.status === 'published');
    expect(done).toMatchObject({ status: 'published', publishError: null });
    expect((await fetch(`${d.url}/api/v1/content/articles/${a.slug}?key=${key}`)).status).toBe(200);
    const healthy = await runCli(['doctor'], { env: d.env, cwd: d.dir });
    expect(healthy.stdout).not.toContain('scheduled article');
  });

  it('the MCP can schedule, with the same rules for the time', async () => {
    const d = await startDaemon({ jobs: false });
    const ws = await seedWorkspace(d.app);
    const admin = await seedUser(d.app, ws, 'admin');
    const agent = await connect(d, (await createApiKey(d.app, { workspaceId: ws.id, userId: admin.id, name: 'agent', scopes: ['read', 'publish'] })).key);
    const a = await seedArticle(d.app, ws, { title: 'Later' });
    const refused = await agent.call('schedule_article', { id: a.id, at: '2027-01-01T09:00:00' });
    expect(refused).toMatchObject({ isError: true, text: '"2027-01-01T09:00:00" has no time zone: add Z for UTC or an offset, e.g. 2026-12-01T09:00:00Z or 2026-12-01T10:00:00+01:00' });
    const ok = await agent.call('schedule_article', { slug: a.slug, at: '2027-01-01T10:00:00+01:00' });
    expect(ok.text).toBe('Scheduled "Later" (later) to be published at 2027-01-01T09:00:00.000Z.');
    expect(await getArticle(d.app, ws, a.id)).toMatchObject({ status: 'scheduled', scheduledAt: '2027-01-01T09:00:00.000Z' });
  });
});
