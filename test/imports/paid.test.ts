import { describe, expect, it } from 'vitest';
import { ghostExport, write } from './samples.js';
import { importWorld } from './world.js';

describe('Ghost members-only and paid posts', () => {
  it('are imported as drafts, never published whole, and the summary says so', async () => {
    const w = await importWorld();
    const paidHtml = '<p>Free preview.</p><!--members-only--><p>SECRET paid part.</p>';
    write(
      w.d.dir,
      'ghost.json',
      ghostExport([
        { slug: 'open', title: 'Open', html: '<p>For everyone.</p>', visibility: 'public' },
        { slug: 'paid', title: 'Paid', html: paidHtml, visibility: 'paid' },
        { slug: 'members', title: 'Members', html: '<p>Members SECRET.</p>', visibility: 'members' },
        { slug: 'tiers', title: 'Tiers', html: '<p>Tier SECRET.</p>', visibility: 'tiers' },
      ]),
    );
    const r = await w.cli(['articles', 'import', '--publish', 'ghost.json', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const report = r.json();
    expect(report.counts).toMatchObject({ imported: 4, published: 1, drafts: 3 });
    expect(report.notes).toContain(
      'Ghost posts for members or paid subscribers were imported as drafts, whole (svc has no members: published, they would be public; cut them at <!--members-only--> before publishing): ghost.json: post "paid", ghost.json: post "members", ghost.json: post "tiers"',
    );
    const list = (await w.api('/articles')).body.data.articles;
    expect(list.map((a: { slug: string }) => a.slug)).toEqual(['open']);
    for (const slug of ['paid', 'members', 'tiers']) expect((await w.api(`/articles/${slug}`)).status).toBe(404);
    expect(JSON.stringify(list)).not.toContain('SECRET');
    const paid = (await w.cli(['articles', 'show', 'paid', '--json'])).json();
    expect(paid.status).toBe('draft');
    expect(paid.bodyMarkdown).toContain('SECRET paid part.');
  });
});
