import { writeFileSync } from 'node:fs';
import path from 'node:path';
import prompts from 'prompts';
import { describe, expect, it } from 'vitest';
import { ensureConnector } from '../../src/connectors/store.js';
import { expectCleanError, initialised } from './sandbox.js';

const md = (front: string, body = '## Section\n\nSome text.\n') => `---\n${front}\n---\n${body}`;

describe('svc articles add, list, show, edit, delete', () => {
  it('add with every field flag', async () => {
    const box = await initialised();
    const a = await box.json([
      'articles', 'add', '--title', 'Hello World', '--type', 'how-to', '--body', '## Start\n\nText.',
      '--meta-title', 'Meta', '--meta-description', 'Description', '--focus-keyword', 'hello',
      '--keywords', 'one, two', '--image', 'https://img.example/a.png', '--image-alt', 'A picture',
      '--author', 'Ann', '--target-length', '1200',
    ]);
    expect(a).toMatchObject({
      id: expect.stringMatching(/^art_/),
      workspaceId: box.workspace.id,
      title: 'Hello World',
      slug: 'hello-world',
      contentType: 'HOW_TO',
      bodyMarkdown: '## Start\n\nText.',
      metaTitle: 'Meta',
      metaDescription: 'Description',
      focusKeyword: 'hello',
      secondaryKeywords: ['one', 'two'],
      featuredImageUrl: 'https://img.example/a.png',
      imageAlt: 'A picture',
      author: 'Ann',
      targetLength: 1200,
      status: 'draft',
      published: false,
    });
  });

  it('generates unique slugs from titles, and takes the title from a leading # heading', async () => {
    const box = await initialised();
    expect((await box.json(['articles', 'add', '--title', 'Crème Brûlée: a guide!'])).slug).toBe('creme-brulee-a-guide');
    expect((await box.json(['articles', 'add', '--title', 'Crème Brûlée: A Guide'])).slug).toBe('creme-brulee-a-guide-2');
    expect((await box.json(['articles', 'add', '--title', 'creme brulee a guide'])).slug).toBe('creme-brulee-a-guide-3');
    const fromBody = await box.json(['articles', 'add', '--body', '# From The Body\n\nText']);
    expect(fromBody).toMatchObject({ title: 'From The Body', slug: 'from-the-body' });
  });

  it('reads the body from a file or from stdin', async () => {
    const box = await initialised();
    writeFileSync(path.join(box.dir, 'body.md'), '# File Title\n\nFrom a file.\n');
    expect((await box.json(['articles', 'add', '--body-file', 'body.md'])).bodyMarkdown).toBe('# File Title\n\nFrom a file.\n');
    const r = await box.cli(['articles', 'add', '--title', 'Piped', '--body-file', '-', '--json'], { stdin: 'piped **markdown**' });
    expect(r.json().bodyMarkdown).toBe('piped **markdown**');
    expectCleanError(await box.cli(['articles', 'add', '--body-file', 'missing.md']), 1, `error: No such file: ${path.join(box.dir, 'missing.md')}`);
    expectCleanError(await box.cli(['articles', 'add', '--body', 'x', '--body-file', 'body.md']), 2, 'error: Pass --body or --body-file, not both');
  });

  it('list (with --status, --limit, --offset), show, edit', async () => {
    const box = await initialised();
    const first = await box.json(['articles', 'add', '--title', 'First']);
    const second = await box.json(['articles', 'add', '--title', 'Second']);
    const page = await box.json(['articles', 'list']);
    expect(page).toMatchObject({ total: 2, limit: 50, offset: 0 });
    expect(page.articles.map((a: { id: string }) => a.id).sort()).toEqual([first.id, second.id].sort());
    expect(page.articles[0].bodyMarkdown).toBeUndefined();
    expect((await box.json(['articles', 'list', '--limit', '1', '--offset', '1'])).articles).toHaveLength(1);
    expect((await box.json(['articles', 'list', '--status', 'published'])).total).toBe(0);
    const human = await box.cli(['articles', 'list']);
    expect(human.stdout).toMatch(/^ID\s+SLUG\s+STATUS\s+CONTENT TYPE\s+TITLE\s+UPDATED AT\n/);
    expect(human.stdout).toMatch(/\n2 articles\n$/);

    expect(await box.json(['articles', 'show', 'first'])).toMatchObject({ id: first.id, title: 'First' });
    expect(await box.json(['articles', 'show', second.id])).toMatchObject({ slug: 'second' });
    expect((await box.cli(['articles', 'show', 'first'])).stdout).toContain(`First\n  id:          ${first.id}\n  slug:        first\n  status:      draft`);

    const edited = await box.json(['articles', 'edit', 'first', '--title', 'First, edited', '--slug', 'first-edited', '--keywords', 'a,b', '--type', 'GUIDE']);
    expect(edited).toMatchObject({ id: first.id, title: 'First, edited', slug: 'first-edited', secondaryKeywords: ['a', 'b'], contentType: 'GUIDE' });
    expect((await box.cli(['articles', 'edit', 'first-edited', '--author', 'Bo'])).stdout).toBe('Updated first-edited\n');
  });

  it('delete asks for --yes without a terminal and a confirmation on one', async () => {
    const box = await initialised();
    await box.json(['articles', 'add', '--title', 'Doomed']);
    expectCleanError(await box.cli(['articles', 'delete', 'doomed']), 2, 'error: Delete article doomed? Refusing without --yes');
    prompts.inject([false]);
    expectCleanError(await box.cli(['articles', 'delete', 'doomed'], { interactive: true }), 2, 'error: Cancelled');
    expect(await box.json(['articles', 'delete', 'doomed', '--yes'])).toMatchObject({ slug: 'doomed', deleted: true });
    expectCleanError(await box.cli(['articles', 'show', 'doomed']), 1, 'error: Article "doomed" not found');
  });

  it('refuses bad input with a clear message', async () => {
    const box = await initialised();
    await box.json(['articles', 'add', '--title', 'Taken']);
    expectCleanError(await box.cli(['articles', 'add', '--title', 'Other', '--slug', 'taken']), 1, 'error: The slug "taken" is already used by another article in workspace example.com');
    await box.json(['articles', 'add', '--title', 'Other']);
    expectCleanError(await box.cli(['articles', 'edit', 'other', '--slug', 'taken']), 1, 'error: The slug "taken" is already used by another article');
    expectCleanError(await box.cli(['articles', 'add', '--title', 'X', '--slug', 'Not A Slug']), 1, 'error: Invalid article: slug: must be letters, marks and digits of any script joined by single dashes, e.g. my-first-post or 京都-カフェ');
    expectCleanError(await box.cli(['articles', 'add', '--title', 'X', '--slug', 'a--b']), 1, 'slug: must be letters, marks and digits of any script joined by single dashes');
    expectCleanError(await box.cli(['articles', 'add', '--title', 'X', '--slug', '京'.repeat(201)]), 1, 'error: Invalid article: slug: must be at most 200 characters');
    expectCleanError(await box.cli(['articles', 'add', '--title', 'X', '--type', 'poem']), 1, 'error: Invalid article: contentType: content type must be one of BLOG_POST, GUIDE, HOW_TO, LISTICLE, COMPARISON');
    expectCleanError(await box.cli(['articles', 'add', '--title', 'X', '--image', 'file:///etc/passwd']), 1, 'image must be an http(s) URL');
    expectCleanError(await box.cli(['articles', 'add', '--title', 'X', '--target-length', 'long']), 2, 'error: --target-length takes a whole number from 0 to 100000, not "long"');
    expectCleanError(await box.cli(['articles', 'add']), 1, 'a title is required');
    expectCleanError(await box.cli(['articles', 'add', '-w', 'nope.example', '--title', 'X']), 1, 'error: Workspace "nope.example" not found');
    expectCleanError(await box.cli(['articles', 'list', '--status', 'gone']), 2, 'error: --status takes draft, scheduled or published, not "gone"');
    expectCleanError(await box.cli(['articles', 'list', '--limit', 'ten']), 2, 'error: --limit takes a whole number from 1 to 500, not "ten"');
    expectCleanError(await box.cli(['articles', 'edit', 'taken']), 1, 'Nothing to change');
    expectCleanError(await box.cli(['articles', 'edit', 'missing', '--title', 'Y']), 1, 'error: Article "missing" not found');
    expectCleanError(await box.cli(['articles', 'show']), 2, "error: missing required argument 'id|slug'");
  });
});

describe('svc articles import', () => {
  it('imports many files, mapping every front matter key', async () => {
    const box = await initialised();
    writeFileSync(
      path.join(box.dir, 'full.md'),
      md(
        [
          'title: Full Front Matter',
          'slug: full-front',
          'contentType: LISTICLE',
          'metaTitle: The meta title',
          'metaDescription: The description',
          'focusKeyword: focus',
          'keywords: [alpha, beta]',
          'image: https://img.example/full.png',
          'imageAlt: Alt text',
          'author: Jo',
          'targetLength: 900',
        ].join('\n'),
      ),
    );
    writeFileSync(path.join(box.dir, 'heading.md'), '# Only A Heading\n\nNo front matter at all.\n');
    writeFileSync(path.join(box.dir, 'csv.md'), md('title: Comma Keywords\nkeywords: "x, y"'));
    const report = await box.json(['articles', 'import', 'full.md', 'heading.md', 'csv.md']);
    expect(report).toMatchObject({ workspace: 'example.com', counts: { imported: 3, already: 0, published: 0, scheduled: 0, drafts: 3, failed: 0 }, failed: [], notes: [] });
    expect(report.imported.map((a: { slug: string; status: string }) => [a.slug, a.status])).toEqual([['full-front', 'draft'], ['heading', 'draft'], ['csv', 'draft']]);
    expect(await box.json(['articles', 'show', 'full-front'])).toMatchObject({
      id: expect.stringMatching(/^art_/),
      title: 'Full Front Matter',
      slug: 'full-front',
      contentType: 'LISTICLE',
      metaTitle: 'The meta title',
      metaDescription: 'The description',
      focusKeyword: 'focus',
      secondaryKeywords: ['alpha', 'beta'],
      featuredImageUrl: 'https://img.example/full.png',
      imageAlt: 'Alt text',
      author: 'Jo',
      targetLength: 900,
      bodyMarkdown: '## Section\n\nSome text.\n',
      status: 'draft',
    });
    // Without a slug key, the slug is the file name (the URL the old site had), and the title the # heading.
    expect(await box.json(['articles', 'show', 'heading'])).toMatchObject({ title: 'Only A Heading', slug: 'heading' });
    expect((await box.json(['articles', 'show', 'csv'])).secondaryKeywords).toEqual(['x', 'y']);
    expect((await box.json(['articles', 'list'])).total).toBe(3);
  });

  it('shows a progress bar on a terminal, and none in scripts', async () => {
    const box = await initialised();
    const files = [1, 2, 3].map((i) => {
      writeFileSync(path.join(box.dir, `p${i}.md`), md(`title: Post ${i}`));
      return `p${i}.md`;
    });
    const tty = await box.cli(['articles', 'import', ...files], { interactive: true });
    expect(tty.code).toBe(0);
    expect(tty.stderr).toContain(`\rReading [${'#'.repeat(30)}] 3/3\n`);
    expect(tty.stderr).toContain('\rImporting [');
    expect(tty.stderr).toContain('] 0/3');
    expect(tty.stderr).toContain(`[${'#'.repeat(30)}] 3/3\n`);
    expect(tty.stdout).toMatch(/^Imported 3 articles into example\.com: 3 drafts\nSLUG\s+STATUS\s+DATE\s+ID\np1\s+draft\s+-\s+art_/);
    writeFileSync(path.join(box.dir, 'p4.md'), md('title: Post 4'));
    const script = await box.cli(['articles', 'import', 'p4.md']);
    expect(script.code).toBe(0);
    expect(script.stderr).toBe('');
    // The same files again (a re-run): left as they are. A changed one whose slug is taken: reported, never renamed.
    const again = await box.cli(['articles', 'import', ...files]);
    expect(again.stdout).toBe('Imported 0 articles into example.com (3 already there)\n');
    expect(again.stderr).toBe('note: Skipped 3: posts already imported unchanged (same slug, title, body and date), left as they are: p1.md, p2.md, p3.md\n');
    writeFileSync(path.join(box.dir, 'p1.md'), md('title: Post 1, changed'));
    expectCleanError(await box.cli(['articles', 'import', ...files]), 1, 'p1.md: The slug "p1" is already used by another article in workspace example.com');
    expect((await box.json(['articles', 'list'])).total).toBe(4);
  });

  it('bad front matter in any file: nothing is imported, every bad file is named', async () => {
    const box = await initialised();
    writeFileSync(path.join(box.dir, 'good.md'), md('title: Good'));
    writeFileSync(path.join(box.dir, 'yaml.md'), md('title: [unclosed'));
    writeFileSync(path.join(box.dir, 'tags.md'), md('title: X\ntags: 5'));
    writeFileSync(path.join(box.dir, 'type.md'), md('title: X\ntargetLength: lots'));
    writeFileSync(path.join(box.dir, 'open.md'), '---\ntitle: never closed\n');
    const r = await box.cli(['articles', 'import', 'good.md', 'yaml.md', 'tags.md', 'type.md', 'open.md', 'missing.md']);
    expectCleanError(r, 1, 'error: Nothing imported; fix these first (or pass --keep-going to import the rest):');
    expect(r.stderr).toContain('yaml.md: the front matter is not valid YAML');
    expect(r.stderr).toContain('tags.md: tags must be a list of names or a comma-separated string');
    expect(r.stderr).toContain('type.md: targetLength must be a whole number');
    expect(r.stderr).toContain('open.md: the front matter starts with --- but has no closing --- line');
    expect(r.stderr).toContain(`missing.md: No such file: ${path.join(box.dir, 'missing.md')}`);
    expect(r.stderr).not.toContain('good.md');
    expect((await box.json(['articles', 'list'])).total).toBe(0);
  });

  it('a rule broken by one article stops the import before anything is written', async () => {
    const box = await initialised();
    writeFileSync(path.join(box.dir, 'a.md'), md('title: A\nslug: same'));
    writeFileSync(path.join(box.dir, 'b.md'), md('title: B\nslug: same'));
    writeFileSync(path.join(box.dir, 'c.md'), md('title: C\ncontentType: sonnet'));
    expectCleanError(await box.cli(['articles', 'import', 'a.md', 'b.md']), 1, 'error: Nothing imported; fix these first (or pass --keep-going to import the rest):\n  b.md: the slug "same" is also used by a.md');
    expectCleanError(await box.cli(['articles', 'import', 'c.md']), 1, 'c.md: Invalid article: contentType: content type must be one of');
    expect((await box.json(['articles', 'list'])).total).toBe(0);
    await box.json(['articles', 'import', 'a.md']);
    expectCleanError(await box.cli(['articles', 'import', 'b.md']), 1, 'b.md: The slug "same" is already used by another article in workspace example.com');
    expectCleanError(await box.cli(['articles', 'import']), 2, "error: missing required argument 'paths'");
  });
});

describe('svc articles publish, unpublish, schedule', () => {
  it('publish without a destination says so', async () => {
    const box = await initialised();
    await box.json(['articles', 'add', '--title', 'Lonely']);
    expectCleanError(await box.cli(['articles', 'publish', 'lonely']), 1, 'error: Workspace example.com has nowhere to publish to\nhint: Connect a destination first');
    expectCleanError(await box.cli(['articles', 'publish', 'lonely', '--to', 'ftp']), 2, 'error: --to takes headless or webhook, not "ftp"');
    const r = await box.cli(['articles', 'publish', 'lonely', '--json']);
    expect(r.json()).toMatchObject({ error: { code: 'no_destination' } });
  });

  it('publish to the headless destination, republish, unpublish', async () => {
    const box = await initialised();
    const app = await box.app();
    await ensureConnector(app.db, box.workspace.id, 'headless', new Date().toISOString());
    await box.json(['articles', 'add', '--title', 'Going Live']);
    const pub = await box.json(['articles', 'publish', 'going-live']);
    expect(pub).toMatchObject({ article: { slug: 'going-live', status: 'published' }, targets: [{ kind: 'headless', event: 'article.published' }] });
    expect((await box.cli(['articles', 'publish', 'going-live'])).stdout).toBe('Published going-live to headless (article.updated)\n');
    expect((await box.json(['articles', 'list', '--status', 'published'])).total).toBe(1);
    const un = await box.json(['articles', 'unpublish', 'going-live']);
    expect(un).toMatchObject({ article: { status: 'draft' }, removedFrom: ['headless'] });
    expectCleanError(await box.cli(['articles', 'unpublish', 'going-live']), 1, 'error: Article "going-live" is not published');
  });

  it('schedule takes an ISO time', async () => {
    const box = await initialised();
    await box.json(['articles', 'add', '--title', 'Later']);
    const a = await box.json(['articles', 'schedule', 'later', '--at', '2031-05-06T07:08:09+01:00']);
    expect(a).toMatchObject({ status: 'scheduled', scheduledAt: '2031-05-06T06:08:09.000Z' });
    expectCleanError(await box.cli(['articles', 'schedule', 'later', '--at', 'soon']), 1, 'error: "soon" is not an ISO 8601 date-time');
    // Issue 11: a time without a zone is not read in the machine's zone, and a five-digit year is not a time.
    expectCleanError(await box.cli(['articles', 'schedule', 'later', '--at', '2031-05-06T07:08:09']), 1, 'error: "2031-05-06T07:08:09" has no time zone: add Z for UTC or an offset');
    expectCleanError(await box.cli(['articles', 'schedule', 'later', '--at', '+010000-01-01T00:00:00Z']), 1, 'error: "+010000-01-01T00:00:00Z" is not an ISO 8601 date-time');
    expectCleanError(await box.cli(['articles', 'schedule', 'later', '--at', '2099-01-01T00:00:00Z']), 1, 'error: "2099-01-01T00:00:00Z" is more than 10 years ahead');
    const bad = await box.cli(['articles', 'schedule', 'later', '--at', '2031-02-30T00:00:00Z', '--json']);
    expect(bad.json()).toEqual({ error: { code: 'invalid_input', message: '"2031-02-30T00:00:00Z" is not a real date and time' } });
    expect(await box.json(['articles', 'show', 'later'])).toMatchObject({ status: 'scheduled', scheduledAt: '2031-05-06T06:08:09.000Z' });
    // A past time is a mistake until asked for: nothing is scheduled, then --allow-past takes it.
    expectCleanError(await box.cli(['articles', 'schedule', 'later', '--at', '2020-01-01T00:00:00Z']), 1, 'error: 2020-01-01T00:00:00Z is in the past');
    expect(await box.json(['articles', 'schedule', 'later', '--at', '2020-01-01T00:00:00Z', '--allow-past'])).toMatchObject({ scheduledAt: '2020-01-01T00:00:00.000Z' });
    expectCleanError(await box.cli(['articles', 'schedule', 'later']), 2, "error: required option '--at <iso>' not specified");
  });
});
