import { describe, expect, it } from 'vitest';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { keywordFamily } from '../../src/articles/keyword-family.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { seedArticle } from '../helpers/seed.js';
import { connect, workspaceWithAdmin } from './helpers.js';

describe('an audit and warnings an agent can trust (issue 40)', () => {
  it('folds case, hyphens and plurals of focus keywords, and nothing else', () => {
    expect(keywordFamily('Pour-over Coffees')).toBe(keywordFamily('pour over coffee'));
    expect(keywordFamily('french_press  brushes')).toBe(keywordFamily('French press brush'));
    expect(keywordFamily('best espresso glass')).toBe('best espresso glass');
    expect(keywordFamily('cold brew')).not.toBe(keywordFamily('cold brews tea'));
  });

  it("counts the site's own absolute links as internal, flags links to missing or unpublished articles, and warns of focus-keyword conflicts at create, update and audit", async () => {
    const { d, ws, key } = await workspaceWithAdmin();
    await generateBlogKey(d.app, ws);
    const live = await seedArticle(d.app, ws, { title: 'Grind guide', focusKeyword: 'pour over coffee' });
    await publishArticle(d.app, ws, live.id);
    const draft = await seedArticle(d.app, ws, { title: 'Draft one', focusKeyword: 'espresso' });
    const agent = await connect(d, await key(['read', 'content']));

    const body = [
      '## Pour-over coffees at home',
      `Read the [grind guide](https://example.com/blog/${live.slug}), the [draft](https://example.com/blog/${draft.slug}/), [nothing](/blog/no-such-post) and [a source](https://other.org/x).`,
      '## More',
      'Words.',
    ].join('\n\n');
    const created = await agent.call('create_article', { title: 'Pour-over at home', bodyMarkdown: body, focusKeyword: 'Pour-over coffees' });
    const conflict = `Focus keyword conflict: "Pour-over coffees" is also the focus keyword of "${live.slug}" (focus keyword "pour over coffee", published)`;
    expect(created.text).toContain(`\nWarning: ${conflict}`);
    expect(created.structuredContent).toMatchObject({ warnings: [expect.stringContaining(conflict)] });
    const id = (created.structuredContent as { article: { id: string } }).article.id;

    const audit = await agent.call('audit_article', { id });
    expect(audit.text).toContain('[pass] Links (10): 3 internal and 1 external links');
    expect(audit.text).toContain(`[warn] Link to https://example.com/blog/${draft.slug}/: the article "${draft.slug}" is not published (draft), so the link is broken until it is`);
    expect(audit.text).toContain('[warn] Link to /blog/no-such-post: no article of this site has the slug "no-such-post"');
    expect(audit.text).toContain(`[warn] ${conflict}`);
    expect(audit.text).not.toContain(`Link to https://example.com/blog/${live.slug}:`);
    expect((audit.structuredContent as { warnings: string[] }).warnings).toHaveLength(3);

    // Link targets: published articles only, with the url to write.
    const targets = await agent.call('find_link_targets', { topic: 'grind' });
    expect(targets.text).toBe(`Published articles to link to about "grind", best first (link with their url):\n- [Grind guide](https://example.com/blog/${live.slug}) focus keyword: pour over coffee`);
    expect(targets.structuredContent).toMatchObject({ targets: [{ id: live.id, url: `https://example.com/blog/${live.slug}`, title: 'Grind guide', focusKeyword: 'pour over coffee' }] });
    expect((await agent.call('find_link_targets', { topic: 'Draft' })).text).toBe('No published article matches "Draft".');
    const prompt = await agent.getPrompt({ name: 'write_seo_article', arguments: { topic: 'Coffee', focusKeyword: 'coffee' } });
    expect(JSON.stringify(prompt.messages)).toContain('call find_link_targets with a topic word and link to the url');

    const moved = await agent.call('update_article', { id, focusKeyword: 'ESPRESSO' });
    expect(moved.text).toContain(`Warning: Focus keyword conflict: "ESPRESSO" is also the focus keyword of "${draft.slug}" (focus keyword "espresso", draft)`);
    expect((await agent.call('update_article', { id, focusKeyword: 'moka pot' })).structuredContent).toMatchObject({ warnings: [] });
  });
});
