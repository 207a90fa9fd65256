import { describe, expect, it } from 'vitest';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { CONTENT_TYPE_NAMES } from '../../src/articles/categories.js';
import { articleCreateInput, articleListInput, articleUpdateInput } from '../../src/articles/inputs.js';
import { isValidSlug } from '../../src/lib/slug.js';
import { runCli } from '../helpers/cli.js';
import { seedArticle } from '../helpers/seed.js';
import { keywordWorkspace } from '../keywords/setup.js';
import { connect, workspaceWithAdmin } from './helpers.js';
import { GIF_1X1 } from '../images/png.js';

// Issue 17: tool input schemas are derived from the domain's (articles/inputs.ts), not restated,
// so the limits tools/list advertises and the words of a refusal are the CLI's. Issue 11: the
// `additionalProperties: false` every tool advertises is enforced.

type JsonSchema = { type?: string; properties?: Record<string, any>; additionalProperties?: boolean; required?: string[] };

describe('MCP tool input schemas', () => {
  it('have exactly the fields of the domain inputs, with the domain limits', async () => {
    const { d, key } = await workspaceWithAdmin();
    const agent = await connect(d, await key());
    const schemas = Object.fromEntries((await agent.listTools()).tools.map((t) => [t.name, t.inputSchema as JsonSchema]));
    const keys = (name: string) => Object.keys(schemas[name].properties ?? {}).sort();
    expect(keys('create_article')).toEqual([...Object.keys(articleCreateInput.shape), 'allowDuplicate'].sort()); // allowDuplicate: the agent's retry guard
    // The article is named by id or slug; the domain's slug is the new slug (newSlug).
    expect(keys('update_article')).toEqual(['id', 'slug', 'newSlug', ...Object.keys(articleUpdateInput.shape).filter((k) => k !== 'slug')].sort());
    expect(keys('list_articles')).toEqual([...Object.keys(articleListInput.shape), 'query'].sort()); // query: the content API's search (content/search-terms.ts)
    const create = schemas.create_article.properties!;
    // Text limits count characters as the database does (code points, articles/inputs.ts): the
    // descriptions state them too (the schema's maxLength: the next describe block).
    expect(create.slug).toMatchObject({ type: 'string', description: expect.stringContaining('at most 200 characters') });
    expect(create.metaTitle.description).toContain('at most 500');
    expect(create.bodyMarkdown).toMatchObject({ type: 'string', maxLength: 2_000_000 });
    expect(create.targetLength).toMatchObject({ type: 'integer', minimum: 0, maximum: 100_000 });
    expect(schemas.list_articles.properties!.limit).toMatchObject({ minimum: 1, maximum: 500, default: 50 });
    for (const [name, schema] of Object.entries(schemas)) {
      expect(schema, name).toMatchObject({ type: 'object', additionalProperties: false });
      for (const [field, prop] of Object.entries(schema.properties ?? {})) expect(prop.description, `${name}.${field}`).toBeTruthy();
    }
  });

  it('describe slugs as the validator takes them: every separator it accepts, and examples the tools accept', async () => {
    const { d, ws, key } = await workspaceWithAdmin();
    const agent = await connect(d, await key());
    const schemas = Object.fromEntries((await agent.listTools()).tools.map((t) => [t.name, t.inputSchema as JsonSchema]));
    const createSlug: string = schemas.create_article.properties!.slug.description;
    const updateSlug: string = schemas.update_article.properties!.newSlug.description;
    for (const [separator, name] of [['-', 'dashes'], ['.', 'dots'], ['_', 'underscores']]) {
      expect(isValidSlug(`v1${separator}2`), separator).toBe(true);
      expect(createSlug).toContain(name);
      expect(updateSlug).toContain(name);
    }
    expect(isValidSlug('a--b')).toBe(false);
    expect(createSlug).toContain('single');
    const examples = /\(e\.g\. ([^)]+)\)/.exec(createSlug)![1].split(', ');
    expect(examples).toContain('v1.2_notes');
    for (const slug of examples) {
      const created = await agent.call('create_article', { title: `Example ${slug}`, bodyMarkdown: 'Body.', slug });
      expect(created.isError, created.text).toBeFalsy();
      expect(created.structuredContent).toMatchObject({ article: { slug } });
    }
    const a = await seedArticle(d.app, ws);
    expect(await agent.call('update_article', { id: a.id, newSlug: 'Release_Notes.v2' })).toMatchObject({ structuredContent: { article: { slug: 'release_notes.v2' } } });
  });

  it('refuse an over-long field with the same message as the CLI, and spend nothing', async () => {
    const { d, ws, key } = await workspaceWithAdmin();
    const agent = await connect(d, await key());
    const a = await seedArticle(d.app, ws);
    const long = 'x'.repeat(501);
    const message = 'Invalid article: metaTitle: must be at most 500 characters';

    const cliAdd = await runCli(['articles', 'add', '--workspace', ws.id, '--title', 'T', '--body', 'b', '--meta-title', long], { env: d.env, cwd: d.dir });
    expect(cliAdd.code).toBe(1);
    expect(cliAdd.stderr).toBe(`error: ${message}\n`);
    expect(await agent.call('create_article', { title: 'T', bodyMarkdown: 'b', metaTitle: long })).toMatchObject({ isError: true, text: message });

    const cliEdit = await runCli(['articles', 'edit', a.id, '--workspace', ws.id, '--meta-title', long], { env: d.env, cwd: d.dir });
    expect(cliEdit.stderr).toBe(`error: ${message}\n`);
    expect(await agent.call('update_article', { id: a.id, metaTitle: long })).toMatchObject({ isError: true, text: message });

    expect((await agent.call('get_site_profile')).text).toContain('\nArticles: 0/10\n');
    expect((await agent.call('get_article', { id: a.id })).structuredContent).toMatchObject({ metaTitle: null });
  });

  it('refuse arguments they do not name, on every tool, before anything happens', async () => {
    const { d, ws, key } = await workspaceWithAdmin();
    const agent = await connect(d, await key());
    const a = await seedArticle(d.app, ws);
    const calls: Array<[string, Record<string, unknown>, string]> = [
      ['get_site_profile', {}, 'arguments'],
      ['list_articles', {}, 'list options'],
      ['get_article', { id: a.id }, 'arguments'],
      ['create_article', { title: 'T', bodyMarkdown: 'b' }, 'article'],
      ['update_article', { id: a.id, title: 'New' }, 'article'],
      ['audit_article', { id: a.id }, 'arguments'],
      ['publish_article', { id: a.id }, 'arguments'],
      ['unpublish_article', { id: a.id }, 'arguments'],
    ];
    for (const [tool, args, what] of calls) {
      expect(await agent.call(tool, { ...args, bogus: 1 }), tool).toMatchObject({ isError: true, text: `Invalid ${what}: unknown field bogus` });
    }
    // Nothing was created, changed, audited or spent.
    expect((await agent.call('get_site_profile')).text).toMatch(/\nArticles: 0\/10\nAudits: 0\/50\n/);
    expect((await agent.call('get_article', { id: a.id })).structuredContent).toMatchObject({ title: a.title, status: 'draft', seoScore: null });
  });
});

describe('MCP tool input schemas advertise what the domain enforces', () => {
  it('enum, maxLength (in code points), slug pattern, maxItems and date-time: past each the tool refuses, within each it accepts', async () => {
    const { d, ws, key } = await workspaceWithAdmin();
    const agent = await connect(d, await key());
    const schemas = Object.fromEntries((await agent.listTools()).tools.map((t) => [t.name, t.inputSchema as JsonSchema]));
    const create = schemas.create_article.properties!;
    const update = schemas.update_article.properties!;
    expect(create.contentType).toMatchObject({ enum: CONTENT_TYPE_NAMES });
    const text = (prop: any) => prop.anyOf?.[0] ?? prop; // a field that also takes null (to clear it)
    const limits = { title: 500, metaTitle: 500, metaDescription: 2000, focusKeyword: 200, imageAlt: 500, author: 200, featuredImageUrl: 2000, slug: 200 };
    for (const [field, max] of Object.entries(limits)) expect(text(create[field]), field).toMatchObject({ type: 'string', maxLength: max });
    expect(update.newSlug).toMatchObject({ maxLength: 200, pattern: create.slug.pattern });
    expect(text(update.metaTitle)).toMatchObject({ maxLength: 500 });
    expect(create.secondaryKeywords.anyOf[0]).toMatchObject({ type: 'array', maxItems: 50, items: { maxLength: 200 } });
    expect(schemas.schedule_article.properties!.at).toMatchObject({ type: 'string', format: 'date-time' });

    // Inside every advertised limit, with characters outside the BMP (two UTF-16 units, one code point each).
    const emoji = '😀';
    const pattern = new RegExp(create.slug.pattern, 'u');
    const within = {
      title: emoji.repeat(500),
      slug: `${'é'.repeat(99)}-${'京'.repeat(100)}`,
      contentType: 'HOW_TO',
      metaTitle: emoji.repeat(500),
      focusKeyword: emoji.repeat(200),
      author: emoji.repeat(200),
      secondaryKeywords: Array.from({ length: 50 }, (_, i) => `k${i}${emoji.repeat(190)}`),
    };
    expect(pattern.test(within.slug)).toBe(true);
    const made = await agent.call('create_article', { ...within, bodyMarkdown: 'Body.' });
    expect(made.isError, made.text).toBeFalsy();
    expect(made.structuredContent).toMatchObject({ article: { slug: within.slug, contentType: 'HOW_TO' } });
    // The lenient names of a content type are still taken, though only the canonical ones are advertised.
    expect(await agent.call('create_article', { title: 'Lenient', bodyMarkdown: 'b', contentType: 'how-to' })).toMatchObject({ structuredContent: { article: { contentType: 'HOW_TO' } } });

    // One past each: refused, as the schema says.
    const past: Array<[Record<string, unknown>, RegExp]> = [
      [{ title: emoji.repeat(501) }, /title: must be at most 500 characters/],
      [{ author: 'x'.repeat(201) }, /author: must be at most 200 characters/],
      [{ slug: 'a'.repeat(201) }, /slug: must be at most 200 characters/],
      [{ slug: 'a--b' }, /slug: must be letters/],
      [{ contentType: 'ESSAY' }, /content type must be one of/],
      [{ secondaryKeywords: Array.from({ length: 51 }, (_, i) => `k${i}`) }, /secondaryKeywords/],
      [{ secondaryKeywords: ['x'.repeat(201)] }, /secondaryKeywords\.0: must be at most 200 characters/],
    ];
    for (const [args, message] of past) {
      const value = Object.values(args)[0];
      const [field] = Object.keys(args);
      if (field === 'slug') expect(typeof value === 'string' && value.length <= 200 && pattern.test(value), 'outside the schema').toBe(false);
      expect(await agent.call('create_article', { title: 'T', bodyMarkdown: 'b', ...args }), JSON.stringify(args).slice(0, 60)).toMatchObject({ isError: true, text: expect.stringMatching(message) });
    }

    const a = await seedArticle(d.app, ws);
    expect(await agent.call('schedule_article', { id: a.id, at: 'next tuesday' })).toMatchObject({ isError: true });
    const scheduled = await agent.call('schedule_article', { id: a.id, at: '2030-01-01T09:00:00+01:00' });
    expect(scheduled.isError, scheduled.text).toBeFalsy();
  });
});

describe('MCP tool string limits count what maxLength counts', () => {
  it('on every string field of every tool: N astral characters pass the length check, N + 1 are refused for their length', async () => {
    const { d, ws, agent: agentFor } = await keywordWorkspace({ allowance: 100 });
    const agent = await agentFor(['read', 'content', 'publish']);
    const a = await seedArticle(d.app, ws);
    const base: Record<string, Record<string, unknown>> = {
      create_article: { title: 'T', bodyMarkdown: 'b' },
      research_keywords: { keywords: ['coffee'] },
      find_link_targets: { topic: 'coffee' },
      schedule_article: { id: a.id, at: '2030-01-01T09:00:00Z' },
    };
    const emoji = '😀'; // one code point, two UTF-16 units
    const tooLong = /must be at most \d+ characters|is at most \d+ characters/;
    let checked = 0;
    for (const tool of (await agent.listTools()).tools) {
      const args = base[tool.name] ?? (tool.inputSchema.properties?.id ? { id: a.id } : {});
      for (const [field, prop] of Object.entries((tool.inputSchema as JsonSchema).properties ?? {})) {
        const shape = prop.anyOf?.[0] ?? prop; // a field that also takes null
        const list = shape.type === 'array';
        const str = list ? shape.items : shape;
        // The body's limit is a size (2 MB), not a count of characters a model writes.
        if (str?.type !== 'string' || !str.maxLength || str.maxLength > 100_000) continue;
        const value = (n: number) => (list ? [emoji.repeat(n)] : emoji.repeat(n));
        const at = await agent.call(tool.name, { ...args, [field]: value(str.maxLength) });
        expect(at.text, `${tool.name}.${field} at ${str.maxLength}`).not.toMatch(tooLong);
        const past = await agent.call(tool.name, { ...args, [field]: value(str.maxLength + 1) });
        expect(past, `${tool.name}.${field} past ${str.maxLength}`).toMatchObject({ isError: true, text: expect.stringMatching(tooLong) });
        checked++;
      }
    }
    // Article texts, slugs and refs on each article tool, keywords, queries, topics.
    expect(checked).toBeGreaterThan(30);
  });
});

describe('MCP tool output schemas', () => {
  it('every tool advertises an outputSchema, and each real result fits it', async () => {
    const { d, ws, agent: agentFor } = await keywordWorkspace({ allowance: 10 });
    await generateBlogKey(d.app, ws); // a headless connector: somewhere to publish to
    const agent = await agentFor(['read', 'content', 'publish']);
    const tools = (await agent.listTools()).tools;
    expect(tools.filter((t) => !t.outputSchema).map((t) => t.name)).toEqual([]);
    const get = tools.find((t) => t.name === 'get_article')!.outputSchema as JsonSchema;
    expect(get.properties!.status).toMatchObject({ enum: ['draft', 'scheduled', 'published'] });
    expect(get.properties!.destinations.items.properties.state).toMatchObject({ enum: ['delivered', 'pending', 'failed'] });
    expect(get.required).toEqual(expect.arrayContaining(['url', 'publishedAt', 'live', 'hasUnpublishedChanges', 'destinations']));
    expect(get.properties!.updatedAt).toMatchObject({ type: 'string', format: 'date-time' });
    expect(get.properties!.publishedAt).toMatchObject({ anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] });
    const profile = tools.find((t) => t.name === 'get_site_profile')!.outputSchema as JsonSchema;
    expect(profile.properties!.role).toMatchObject({ enum: ['viewer', 'editor', 'admin'] });
    for (const t of tools) {
      expect(t.outputSchema, t.name).toMatchObject({ type: 'object', additionalProperties: false });
      expect(JSON.stringify(t.outputSchema), `${t.name}: every field written out, no $ref to follow`).not.toContain('$ref');
    }

    // The SDK's client checks each structured result against the tool's outputSchema and throws
    // when one does not fit; every call must also answer with structured content, not an error.
    const called = new Set<string>();
    const call = async (name: string, args: Record<string, unknown> = {}) => {
      const res = await agent.call(name, args);
      expect(res.isError, `${name}: ${res.text}`).toBeFalsy();
      expect(res.structuredContent, name).toBeTruthy();
      called.add(name);
      return res.structuredContent as Record<string, any>;
    };
    await call('get_site_profile');
    const a = await seedArticle(d.app, ws, { focusKeyword: 'cold brew coffee' });
    await call('get_article', { id: a.id });
    await call('list_articles');
    await call('update_article', { id: a.id, title: 'Cold brew coffee at home', secondaryKeywords: ['iced coffee'] });
    await call('audit_article', { id: a.id });
    await call('research_keywords', { keywords: ['cold brew coffee'], includeIdeas: true });
    expect((await call('list_keywords')).keywords.length).toBeGreaterThan(0);
    await call('preview_article', { id: a.id });
    expect(await call('preview_article', { id: a.id, revoke: true })).toMatchObject({ revoked: 1 });
    await call('publish_article', { id: a.id });
    await call('find_link_targets', { topic: 'coffee' });
    await call('unpublish_article', { id: a.id });
    const created = await call('create_article', { title: 'Iced coffee', bodyMarkdown: 'Body.' });
    await call('schedule_article', { id: created.article.id, at: '2030-01-01T09:00:00Z' });
    await call('unschedule_article', { id: created.article.id });
    await call('delete_article', { id: created.article.id });
    await call('upload_image', { data: GIF_1X1.toString('base64') });
    expect([...called].sort()).toEqual(tools.map((t) => t.name).sort());
  });
});
