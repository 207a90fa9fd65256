import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCleanError } from '../cli/sandbox.js';
import { importWorld } from './world.js';

const md = (front: string, body = 'Text.\n') => `---\n${front}\n---\n${body}`;

async function withFiles(files: Record<string, string>, opts: Parameters<typeof importWorld>[0] = {}) {
  const w = await importWorld(opts);
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(w.d.dir, name), text);
  const total = async () => (await w.cli(['articles', 'list', '--json'])).json().total;
  return { ...w, total };
}

const BAD = {
  'good.md': md('title: Good\ndate: 2020-01-01T00:00:00Z'),
  'broken.json': '{ "db": [',
  'other.json': '{ "hello": "world" }',
  'broken.xml': '<rss><channel><item></channel></rss>',
  'not-wxr.xml': '<?xml version="1.0"?><rss version="2.0"><channel><item><title>x</title></item></channel></rss>',
  'bomb.xml': '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]><rss xmlns:wp="http://wordpress.org/export/1.2/"><channel>&lol2;</channel></rss>',
  'bad-date.md': md('title: Bad date\ndate: 2021-02-30'),
  'ghost-bad.json': JSON.stringify({ db: [{ data: { posts: [{ id: '1', title: 'G', slug: 'g', html: '<p>x</p>', status: 'published', published_at: 'yesterday' }] } }] }),
  'ghost-null-post.json': JSON.stringify({ db: [{ data: { posts: [null] } }] }),
  'ghost-tags-object.json': JSON.stringify({ db: [{ data: { posts: [{ id: '1', title: 'T', slug: 't', html: '<p>x</p>' }], tags: {} } }] }),
};

describe('bad files in an import', () => {
  it('are named with their reason, and without --keep-going nothing at all is written', async () => {
    const w = await withFiles(BAD);
    const r = await w.cli(['articles', 'import', '--publish', ...Object.keys(BAD)]);
    expectCleanError(r, 1, 'error: Nothing imported; fix these first (or pass --keep-going to import the rest):');
    const lines = r.stderr.split('\n').slice(1).map((l) => l.trim()).filter(Boolean);
    expect(lines).toEqual([
      expect.stringMatching(/^broken\.json: not valid JSON: /),
      'other.json: not a Ghost export: expected { "db": [{ "data": { "posts": [...] } }] } (Ghost Admin > Settings > Labs > Export)',
      expect.stringMatching(/^broken\.xml: not well-formed XML: .*\(line 1\)$/),
      'not-wxr.xml: not a WordPress export (WXR): expected <rss> with a <channel> of wp: items',
      'bomb.xml: XML entity declarations are not accepted (a WordPress export has none)',
      'bad-date.md: date: "2021-02-30" is not a real date and time',
      'ghost-bad.json: post "g": published_at: "yesterday" is not an ISO 8601 date-time (e.g. 2026-12-01T09:00:00Z)',
      'ghost-null-post.json: not a readable Ghost export: data.posts is not a list of records',
      'ghost-tags-object.json: not a readable Ghost export: data.tags is not a list of records',
    ]);
    expect(await w.total()).toBe(0);
    // --json: the same list, machine-readable.
    const j = await w.cli(['articles', 'import', ...Object.keys(BAD), '--json']);
    expect(j.json().error).toMatchObject({ code: 'invalid_import', failed: expect.arrayContaining([{ source: 'bomb.xml', error: 'XML entity declarations are not accepted (a WordPress export has none)' }]) });
    expect(await w.total()).toBe(0);
  });

  it('--keep-going imports and publishes the rest, reports the bad ones, and exits 1', async () => {
    const w = await withFiles(BAD);
    const r = await w.cli(['articles', 'import', '--publish', '--keep-going', ...Object.keys(BAD)]);
    expectCleanError(r, 1, 'error: 9 could not be imported:\n  broken.json: not valid JSON');
    expect(r.stdout).toMatch(/^Imported 1 article into .*: 1 published\n/);
    expect((await w.api('/articles/good')).body.data.publishedAt).toBe('2020-01-01T00:00:00.000Z');
    // The same run again: the post already in is left alone (not a clash), the bad file still reported.
    const j = await w.cli(['articles', 'import', '--publish', '--keep-going', 'good.md', 'bad-date.md', '--json']);
    expect(j.code).toBe(1);
    expect(j.json().error).toMatchObject({
      code: 'import_incomplete',
      counts: { imported: 0, already: 1, published: 0, failed: 1 },
      failed: [{ source: 'bad-date.md', error: 'date: "2021-02-30" is not a real date and time' }],
      notes: ['Skipped 1: posts already imported unchanged (same slug, title, body and date), left as they are: good.md'],
    });
    expect(await w.total()).toBe(1);
    // Changed since: a clash, reported, not overwritten.
    writeFileSync(path.join(w.d.dir, 'good.md'), md('title: Good, edited\ndate: 2020-01-01T00:00:00Z'));
    expectCleanError(await w.cli(['articles', 'import', 'good.md']), 1, `good.md: The slug "good" is already used by another article in workspace ${w.ws.name}`);
  });

  it('slugs come across unchanged: a clash with an article or within the batch is reported, never renamed', async () => {
    const w = await withFiles({
      'a.md': md('title: A\nslug: shared'),
      'b.md': md('title: B\nslug: shared'),
      'c.md': md('title: C\nslug: Not A Slug'),
      'taken.md': md('title: Taken'),
    });
    expect((await w.cli(['articles', 'add', '--title', 'Existing', '--slug', 'taken'])).code).toBe(0);
    const r = await w.cli(['articles', 'import', 'a.md', 'b.md', 'c.md', 'taken.md', '--keep-going', '--json']);
    expect(r.json().error.failed).toEqual([
      { source: 'b.md', error: 'the slug "shared" is also used by a.md' },
      { source: 'c.md', error: expect.stringMatching(/slug: must be letters, marks and digits of any script.* not "not a slug"$/) },
      { source: 'taken.md', error: `The slug "taken" is already used by another article in workspace ${w.ws.name}` },
    ]);
    expect((await w.cli(['articles', 'list', '--json'])).json().articles.map((a: { slug: string }) => a.slug).sort()).toEqual(['shared', 'taken']);
  });

  it('--strict refuses keys svc does not carry over, which are otherwise one warning', async () => {
    const w = await withFiles({ 'layout.md': md('title: L\nlayout: post\ncomments: true'), 'plain.md': md('title: P') });
    const strict = await w.cli(['articles', 'import', '--strict', 'layout.md', 'plain.md']);
    expectCleanError(strict, 1, 'layout.md: front matter keys svc does not carry over: layout, comments (refused by --strict)');
    expect(await w.total()).toBe(0);
    const lax = await w.cli(['articles', 'import', 'layout.md', 'plain.md']);
    expect(lax.code).toBe(0);
    expect(lax.stderr).toBe('note: Front matter keys not carried over (svc has no field for them): layout (1 file: layout.md), comments (1 file: layout.md)\n');
  });

  it('--publish with nowhere to publish stops before anything is written; a date too far ahead to schedule waits as a draft', async () => {
    const w = await withFiles({ 'p.md': md('title: P\ndate: 2020-01-01'), 'far.md': md('title: Far\ndate: 2099-01-01T00:00:00Z') }, { blogKey: false });
    expectCleanError(await w.cli(['articles', 'import', '--publish', 'p.md']), 1, `error: Workspace ${w.ws.name} has nowhere to publish to`);
    expect(await w.total()).toBe(0);
    expect((await w.cli(['blog-key', 'generate'])).code).toBe(0);
    // A date too far ahead to schedule: imported as a draft with its date, and said.
    const far = await w.cli(['articles', 'import', '--publish', 'far.md', '--json']);
    expect(far.json().imported).toEqual([expect.objectContaining({ slug: 'far', status: 'draft', date: '2099-01-01T00:00:00.000Z' })]);
    expect(far.json().notes).toContain('Posts dated more than 10 years ahead were imported as drafts (svc schedules at most 10 years ahead): publish or schedule them when the date is nearer: far.md');
    expectCleanError(await w.cli(['articles', 'import', 'p.md', '--base-url', 'ftp://x']), 2, 'error: --base-url takes an http(s) address, not "ftp://x"');
  });
});
