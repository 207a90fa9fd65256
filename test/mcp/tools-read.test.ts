import { describe, expect, it } from 'vitest';
import { seedArticle } from '../helpers/seed.js';
import { updateWorkspace } from '../../src/workspaces/service.js';
import { connect, workspaceWithAdmin } from './helpers.js';

describe('MCP read tools over the SDK client', () => {
  it('lists every tool, with input schemas, whatever the scopes', async () => {
    const { d, key } = await workspaceWithAdmin();
    const agent = await connect(d, await key(['read']));
    const { tools } = await agent.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      ['audit_article', 'create_article', 'delete_article', 'find_link_targets', 'get_article', 'get_site_profile', 'list_articles', 'list_keywords', 'preview_article', 'publish_article', 'research_keywords', 'schedule_article', 'unpublish_article', 'unschedule_article', 'update_article', 'upload_image'],
    );
    const create = tools.find((t) => t.name === 'create_article')!;
    expect(create.description).toMatch(/articles` credit/);
    // Every field comes from the domain's input (articles/inputs.ts), none is required there.
    expect(create.inputSchema.required).toBeUndefined();
    expect(Object.keys(create.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['title', 'bodyMarkdown', 'contentType', 'focusKeyword', 'metaDescription']));
  });

  it('get_site_profile answers the exact line format', async () => {
    const { d, ws, key } = await workspaceWithAdmin();
    await updateWorkspace(d.app, ws.id, { plan: 'pro', allowanceArticles: 30, allowanceAudits: 60, allowanceKeywords: 200 });
    const agent = await connect(d, await key(['read', 'content']));
    const res = await agent.call('get_site_profile');
    expect(res.isError).toBeFalsy();
    expect(res.text).toBe(
      [`${ws.name} — https://example.com`, 'Plan: pro (active)', 'Articles: 0/30', 'Audits: 0/60', 'Keyword lookups: 0/200', 'Scopes: read, content'].join('\n'),
    );
    expect(res.structuredContent).toMatchObject({ plan: 'pro', billingStatus: 'active', scopes: ['read', 'content'], usage: { articles: { used: 0, allowed: 30 } } });
  });

  it('list_articles filters by status and pages', async () => {
    const { d, ws, key } = await workspaceWithAdmin();
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await seedArticle(d.app, ws, { title: `Post ${i}` }));
    const agent = await connect(d, await key(['read']));
    const first = await agent.call('list_articles', { limit: 2 });
    expect(first.structuredContent).toMatchObject({ total: 5, limit: 2, offset: 0, nextOffset: 2 });
    expect((first.structuredContent!.articles as unknown[]).length).toBe(2);
    expect(first.text).toContain('Articles 1-2 of 5');
    expect(first.text).toContain('More: call again with offset 2');
    const last = await agent.call('list_articles', { limit: 2, offset: 4 });
    expect(last.structuredContent).toMatchObject({ offset: 4, nextOffset: null }); // the last page: no cursor
    expect((last.structuredContent!.articles as Array<{ title: string }>).map((a) => a.title)).toEqual(['Post 0']);
    const published = await agent.call('list_articles', { status: 'published' });
    expect(published.text).toBe('No published articles (total 0).');
    const drafts = await agent.call('list_articles', { status: 'draft' });
    expect(drafts.structuredContent).toMatchObject({ total: 5 });
  });

  it('get_article finds by id or slug and explains a miss', async () => {
    const { d, ws, key } = await workspaceWithAdmin();
    const a = await seedArticle(d.app, ws, { title: 'Cold brew guide', focusKeyword: 'cold brew' });
    const agent = await connect(d, await key(['read']));
    const byId = await agent.call('get_article', { id: a.id });
    expect(byId.text).toContain('# Cold brew guide');
    expect(byId.text).toContain(a.bodyMarkdown);
    // The body once: in the text; the structured part has its size.
    expect(byId.structuredContent).toMatchObject({ id: a.id, slug: 'cold-brew-guide', focusKeyword: 'cold brew', bodyCharacters: [...a.bodyMarkdown].length });
    expect(byId.structuredContent).not.toHaveProperty('bodyMarkdown');
    const lean = await agent.call('get_article', { id: a.id, includeBody: false });
    expect(lean.text).not.toContain(a.bodyMarkdown);
    expect(lean.text).toContain(`(body: ${[...a.bodyMarkdown].length} characters, left out)`);
    const bySlug = await agent.call('get_article', { slug: 'cold-brew-guide' });
    expect(bySlug.structuredContent).toMatchObject({ id: a.id });
    const missing = await agent.call('get_article', { slug: 'nope' });
    expect(missing).toMatchObject({ isError: true, text: 'Article "nope" not found' });
    const none = await agent.call('get_article', {});
    expect(none.isError).toBe(true);
    expect(none.text).toMatch(/pass its id or its slug/);
  });
});
