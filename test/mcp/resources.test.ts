import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { seedArticle } from '../helpers/seed.js';
import { connect, workspaceWithAdmin } from './helpers.js';

/** The front matter and the body of a resource's Markdown. */
function split(text: string): { front: Record<string, unknown>; body: string } {
  const m = /^---\n([\s\S]*?)\n---\n\n([\s\S]*)$/.exec(text);
  if (!m) throw new Error(`no front matter in:\n${text}`);
  return { front: YAML.parse(m[1], { strict: true }) as Record<string, unknown>, body: m[2] };
}

describe('the article:// resource is the published snapshot', () => {
  it('keeps serving what the site shows after an unpublished edit, as valid YAML with the H1 once', async () => {
    const { d, ws, key } = await workspaceWithAdmin();
    await generateBlogKey(d.app, ws);
    const a = await seedArticle(d.app, ws, { title: 'Tea: a guide #1', bodyMarkdown: '# Tea: a guide #1\n\nThe live text about green tea.\n\n## Brewing\n\nHot water.' });
    await publishArticle(d.app, ws, a.id);
    const agent = await connect(d, await key(['read', 'content']));
    const edit = await agent.callTool({ name: 'update_article', arguments: { slug: a.slug, bodyMarkdown: 'An unpublished rewrite.' } });
    expect(edit.isError).toBeFalsy();

    const { contents } = await agent.readResource({ uri: `article://${a.slug}` });
    const text = (contents[0] as { text: string }).text;
    const { front, body } = split(text);
    expect(front).toMatchObject({ title: 'Tea: a guide #1', slug: a.slug, category: 'blog' });
    expect(body).toContain('The live text about green tea.');
    expect(body).not.toContain('unpublished rewrite');
    expect(body.match(/^# /gm)).toHaveLength(1);
    expect(body.startsWith('# Tea: a guide #1\n\n')).toBe(true);

    const { resources } = await agent.listResources();
    expect(resources.map((r) => r.uri)).toEqual([`article://${a.slug}`]);
  });

  it('has no resource for a draft', async () => {
    const { d, ws, key } = await workspaceWithAdmin();
    const draft = await seedArticle(d.app, ws, { title: 'Only a draft' });
    const agent = await connect(d, await key(['read']));
    expect((await agent.listResources()).resources).toEqual([]);
    await expect(agent.readResource({ uri: `article://${draft.slug}` })).rejects.toThrow(`No published article "${draft.slug}"`);
  });
});
