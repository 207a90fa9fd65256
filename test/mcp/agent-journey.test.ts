import { describe, expect, it } from 'vitest';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { setWebhook } from '../../src/webhooks/service.js';
import { runCli } from '../helpers/cli.js';
import { TestClock } from '../helpers/clock.js';
import { startDaemon } from '../helpers/daemon.js';
import { seedUser, seedWorkspace } from '../helpers/seed.js';
import { startReceiver } from '../webhooks/receiver.js';
import { createApiKey } from '../../src/auth/api-keys.js';
import type { Scope } from '../../src/auth/scopes.js';
import { connect } from './helpers.js';

const BODY = ['## Why a French press', 'Full body, rich oil.', '## How to brew', 'Steep four minutes, then press slowly.'].join('\n\n');

/**
 * An agent's whole job, as it was tried (issue 40): through the SDK's client it writes, retries,
 * publishes against a receiver answering 500, edits, schedules, unschedules, takes down, publishes
 * again and deletes, and every result must say what is true.
 */
describe('an agent writing and publishing through MCP is told the truth', () => {
  it('sees a refused delivery, what is live, and can undo what it did', async () => {
    const clock = new TestClock();
    const d = await startDaemon({ clock });
    const ws = await seedWorkspace(d.app);
    const admin = await seedUser(d.app, ws, 'admin');
    const key = async (scopes: Scope[]) => (await createApiKey(d.app, { workspaceId: ws.id, userId: admin.id, name: scopes.join('-'), scopes })).key;
    let answer = 500;
    const receiver = await startReceiver(() => ({ status: answer, body: answer === 500 ? { error: 'database down' } : { url: 'https://cms.example.com/french-press' } }));
    await setWebhook(d.app, ws, { url: receiver.url });
    await generateBlogKey(d.app, ws);
    const agent = await connect(d, await key(['read', 'content', 'publish']));

    // Write; a retried create makes no copy and spends nothing.
    const input = { title: 'French press guide', bodyMarkdown: BODY, focusKeyword: 'french press' };
    const created = await agent.call('create_article', input);
    expect(created.isError, created.text).toBeFalsy();
    const id = (created.structuredContent as { article: { id: string } }).article.id;
    const retried = await agent.call('create_article', input);
    expect(retried).toMatchObject({ isError: true, text: expect.stringContaining(`An article with this title already exists: "French press guide" (slug: french-press-guide, id: ${id}, draft). Nothing was created.`) });
    const copy = await agent.call('create_article', { ...input, allowDuplicate: true });
    expect(copy.structuredContent).toMatchObject({ article: { slug: 'french-press-guide-2', live: false, publishedAt: null, destinations: [] } });
    expect((await agent.call('delete_article', { slug: 'french-press-guide-2' })).text).toBe('Deleted "French press guide" (french-press-guide-2).');
    expect((await agent.call('list_articles')).structuredContent).toMatchObject({ total: 1 });

    const audited = await agent.call('audit_article', { id });
    expect(audited.isError, audited.text).toBeFalsy();
    expect((await agent.call('get_article', { id })).structuredContent).toMatchObject({ seoScoreStale: false });

    // Publish against a failing receiver: the result says so, and so does every read afterwards.
    const published = await agent.call('publish_article', { id });
    expect(published.isError).toBeFalsy();
    expect(published.text).toMatch(
      /^Published "French press guide" \(french-press-guide\) to headless \(first publish\), webhook \(first publish\)\. Live at https:\/\/example\.com\/blog\/french-press-guide\. WARNING: the webhook receiver did NOT accept it \(HTTP 500: \{"error":"database down"\}\); it will be retried at \S+Z\./,
    );
    const firstPublish = clock.now().toISOString().slice(0, 16);
    const webhookState = { kind: 'webhook', state: 'pending', attempts: 1, lastStatus: 500, lastError: 'HTTP 500: {"error":"database down"}', nextAttemptAt: expect.any(String) };
    expect(published.structuredContent).toMatchObject({ article: { live: true, url: 'https://example.com/blog/french-press-guide', hasUnpublishedChanges: false, destinations: [{ kind: 'headless', state: 'delivered' }, webhookState] } });
    const read = await agent.call('get_article', { id });
    expect(read.text).toContain('webhook: pending after 1 failed attempt (HTTP 500: {"error":"database down"}), next try at');
    expect(read.structuredContent).toMatchObject({ status: 'published', live: true, destinations: [{ kind: 'headless' }, webhookState] });
    expect((await agent.call('list_articles')).text).toContain('[published, live, webhook pending]');
    const show = await runCli(['articles', 'show', id, '--workspace', ws.name], { env: d.env, cwd: d.dir });
    expect(show.stdout).toContain('  webhook:     pending after 1 failed attempt (HTTP 500: {"error":"database down"}), next try at');
    expect(show.stdout).toContain('  live:        https://example.com/blog/french-press-guide\n');

    // An edit shows as not yet live.
    await agent.call('update_article', { id, metaDescription: 'How to brew with a French press: grind, ratio, steep time and pressing, step by step.' });
    const edited = await agent.call('get_article', { id });
    expect(edited.structuredContent).toMatchObject({ hasUnpublishedChanges: true, live: true, seoScoreStale: true });
    expect(edited.text).toContain('(stale: edited since the audit; run audit_article again)');

    // A scheduled republish keeps a live article published; a past time is refused; unscheduling cancels.
    const at = new Date(clock.now().getTime() + 86_400_000).toISOString();
    const scheduled = await agent.call('schedule_article', { id, at });
    expect(scheduled.text).toBe(`Scheduled "French press guide" (french-press-guide) to be published at ${at}. It stays live as it is until then.`);
    expect((await agent.call('list_articles', { status: 'published' })).structuredContent).toMatchObject({ total: 1, articles: [{ id, status: 'published', scheduledAt: at, live: true }] });
    const past = await agent.call('schedule_article', { id, at: '2020-01-01T09:00:00Z' });
    expect(past).toMatchObject({ isError: true, text: expect.stringContaining('2020-01-01T09:00:00Z is in the past') });
    expect((await agent.call('get_article', { id })).structuredContent).toMatchObject({ scheduledAt: at });
    const unscheduled = await agent.call('unschedule_article', { id });
    expect(unscheduled.text).toBe('Cancelled the scheduled publish of "French press guide" (french-press-guide); it is still published.');
    expect(unscheduled.structuredContent).toMatchObject({ article: { status: 'published', scheduledAt: null, live: true } });
    expect(await agent.call('unschedule_article', { id })).toMatchObject({ isError: true, text: 'Article "french-press-guide" has no scheduled publish' });

    // The receiver recovers: a republish is delivered, and said to be.
    answer = 200;
    clock.advance(3_600_000);
    const again = await agent.call('publish_article', { id });
    expect(again.text).toContain('to headless (updated), webhook (updated). Live at https://example.com/blog/french-press-guide. The webhook receiver accepted it (its URL: https://cms.example.com/french-press).');
    expect(again.structuredContent).toMatchObject({ article: { hasUnpublishedChanges: false, destinations: [{ state: 'delivered' }, { kind: 'webhook', state: 'delivered', lastError: null }] } });

    // Taken down and put back: it keeps its first publish date, and the receiver hears article.published again.
    expect((await agent.call('unpublish_article', { id })).text).toContain('it is now a draft');
    clock.advance(3_600_000);
    const back = await agent.call('publish_article', { id });
    expect(back.text).toContain('webhook (first publish)');
    const state = (await agent.call('get_article', { id })).structuredContent as { publishedAt: string };
    expect(state.publishedAt.slice(0, 16)).toBe(firstPublish);
    const events: string[] = receiver.received.map((r) => r.body.event);
    expect(events.slice(events.indexOf('article.unpublished'))).toEqual(['article.unpublished', 'article.published']);
    expect(receiver.received.at(-1)!.body.article.publishedAt.slice(0, 16)).toBe(firstPublish);

    // Deleting a live article is publishing work: a content-only key is refused, a publish key deletes it.
    const writer = await connect(d, await key(['read', 'content']));
    expect(await writer.call('delete_article', { id })).toMatchObject({ isError: true, text: 'This connection was not granted the `publish` scope: "french-press-guide" is published, and deleting it takes it down' });
    const deleted = await agent.call('delete_article', { id });
    expect(deleted.text).toBe('Deleted "French press guide" (french-press-guide). It was taken down from https://example.com/blog/french-press-guide. The webhook receiver is sent article.deleted (retried until it confirms).');
    await receiver.waitFor(receiver.received.length + 1);
    expect(receiver.received.at(-1)!.body.event).toBe('article.deleted');
    expect((await agent.call('list_articles')).structuredContent).toMatchObject({ total: 0 });
  });
});
