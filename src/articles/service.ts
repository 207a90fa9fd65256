import type { Ctx } from '../context.js';
import { isUniqueViolation, translateDbError } from '../db/errors.js';
import { withTransaction } from '../db/tx.js';
import { AppError, conflict, invalidInput, notFound } from '../errors.js';
import { nowIso } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import { slugify } from '../lib/slug.js';
import { parseInput } from '../lib/validate.js';
import { leadingH1 } from '../lib/markdown.js';
import type { Workspace } from '../workspaces/types.js';
import type { z } from 'zod';
import { type ArticleCreateInput, type ArticleListInput, type ArticleUpdateInput, articleCreateInput, articleListInput, articleUpdateInput } from './inputs.js';
import { assertRenderable } from './body-limits.js';
import { type KeywordRival, keywordFamily } from './keyword-family.js';
import * as store from './store.js';
import type { Article } from './types.js';

/**
 * The dates an imported post had on its old site (UTC ISO): `publishedAt` becomes its first-publish
 * time and `updatedAt` the update time of that publish (decisions.md, "Imported history").
 */
export interface ImportedDates {
  publishedAt?: string;
  updatedAt?: string;
}

/**
 * Insert a draft. Surfaces create through publishing/create.ts, which adds auto-publish and
 * credits; imports pass the post's old dates (a past one is also its creation time).
 */
export async function insertDraft(ctx: Ctx, ws: Workspace, input: ArticleCreateInput, imported: ImportedDates = {}): Promise<Article> {
  const { data, article, title } = newDraft(ws, input, imported, nowIso(ctx.clock));
  if (data.slug !== undefined) await assertSlugFree(ctx, ws, data.slug);
  // A derived slug another writer took between our check and our insert (two articles with one
  // title at the same moment) is made again, up to a few times; inside a caller's transaction the
  // savepoint keeps it usable on PostgreSQL after the failed insert (and on SQLite, outside one,
  // the insert waits for the writer).
  for (let attempt = 1; ; attempt++) {
    if (data.slug === undefined) article.slug = await uniqueSlug(ctx, ws.id, title);
    try {
      await withTransaction(ctx.db, (savepoint) => store.insertArticle(savepoint, article));
      return article;
    } catch (err) {
      if (data.slug === undefined && isUniqueViolation(err) && attempt < 20) continue;
      translateDbError(err, { unique: slugTaken(article.slug, ws) });
    }
  }
}

/**
 * Insert many drafts, each checked as insertDraft checks it, inside the caller's transaction:
 * those with a slug given in a few multi-row statements (an import's posts), the others one by
 * one. A slug taken meanwhile fails the whole call; the caller retries one by one to name it.
 */
export async function insertDrafts(ctx: Ctx, ws: Workspace, items: Array<{ input: ArticleCreateInput; imported?: ImportedDates; checked?: CheckedDraft }>): Promise<Article[]> {
  const now = nowIso(ctx.clock);
  const made = items.map((item) => (item.input.slug === undefined ? undefined : newDraft(ws, item.input, item.imported, now, item.checked).article));
  const given = made.filter((a): a is Article => a !== undefined);
  const taken = await store.takenSlugs(ctx.db, ws.id, given.map((a) => a.slug));
  if (taken.size > 0) throw conflict(slugTaken([...taken][0], ws), { details: { field: 'slug' } });
  try {
    await store.insertArticles(ctx.db, given);
  } catch (err) {
    translateDbError(err, { unique: `A slug of this batch was taken meanwhile in workspace ${ws.name}` });
  }
  const out: Article[] = [];
  for (const [i, item] of items.entries()) out.push(made[i] ?? (await insertDraft(ctx, ws, item.input, item.imported)));
  return out;
}

/** An input as checkDrafts parsed and passed it: inserting it need not check it again. */
export type CheckedDraft = z.output<typeof articleCreateInput>;

/**
 * A new draft from its input, checked (fields, title, renderable body) unless checkDrafts has
 * (`checked`, the parsed input); its slug is '' when none is given.
 */
function newDraft(ws: Workspace, input: ArticleCreateInput, imported: ImportedDates = {}, now: string, checked?: CheckedDraft) {
  const data = checked ?? parseInput(articleCreateInput, input, 'article');
  const title = data.title || leadingH1(data.bodyMarkdown);
  if (!title) throw invalidInput('Invalid article: a title is required (pass a title, or start the markdown with "# Title")', { details: { field: 'title' } });
  if (!checked) assertRenderable(data.slug ?? title, data.bodyMarkdown);
  const created = imported.publishedAt && imported.publishedAt < now ? imported.publishedAt : now;
  const article: Article = {
    id: newId('art'),
    workspaceId: ws.id,
    title,
    slug: data.slug ?? '',
    contentType: data.contentType ?? 'BLOG_POST',
    bodyMarkdown: data.bodyMarkdown,
    metaTitle: data.metaTitle ?? null,
    metaDescription: data.metaDescription ?? null,
    focusKeyword: data.focusKeyword ?? null,
    secondaryKeywords: data.secondaryKeywords ?? [],
    featuredImageUrl: data.featuredImageUrl ?? null,
    imageAlt: data.imageAlt ?? null,
    author: data.author ?? null,
    targetLength: data.targetLength ?? 0,
    seoScore: null,
    status: 'draft',
    scheduledAt: null,
    createdAt: created,
    updatedAt: now,
    importedPublishedAt: imported.publishedAt ?? null,
    importedUpdatedAt: imported.updatedAt ?? null,
    firstPublishedAt: null,
    revision: 0,
    publishedRevision: null,
    auditedRevision: null,
    publishError: null,
  };
  return { data, article, title };
}

/**
 * Check a batch of new drafts as insertDraft would, without writing anything: bad fields, a
 * missing title, and explicit slugs taken in the workspace or repeated in the batch (the later
 * one is named). Returns one problem per item that would not insert; empty when all would.
 */
export async function checkDrafts(ctx: Ctx, ws: Workspace, batch: Array<{ label: string; input: ArticleCreateInput; checked?: CheckedDraft }>): Promise<Array<{ label: string; message: string }>> {
  const problems: Array<{ label: string; message: string }> = [];
  const seen = new Map<string, string>();
  const slugs: Array<{ label: string; slug: string }> = [];
  for (const entry of batch) {
    const { label, input } = entry;
    let data;
    try {
      data = parseInput(articleCreateInput, input, 'article');
    } catch (err) {
      problems.push({ label, message: (err as Error).message });
      continue;
    }
    if (!(data.title || leadingH1(data.bodyMarkdown))) problems.push({ label, message: 'a title is required (set title in the front matter, or start the markdown with "# Title")' });
    else if (!renderable(label, data.bodyMarkdown, problems)) continue;
    else if (data.slug !== undefined) {
      entry.checked = data;
      const earlier = seen.get(data.slug);
      if (earlier) problems.push({ label, message: `the slug "${data.slug}" is also used by ${earlier}` });
      else {
        seen.set(data.slug, label);
        slugs.push({ label, slug: data.slug });
      }
    }
  }
  const taken = await store.takenSlugs(ctx.db, ws.id, slugs.map((s) => s.slug));
  for (const { label, slug } of slugs) if (taken.has(slug)) problems.push({ label, message: slugTaken(slug, ws) });
  return problems;
}

/** Whether svc can render the body; if not, the refusal is added to `problems`. */
function renderable(label: string, markdown: string, problems: Array<{ label: string; message: string }>): boolean {
  try {
    assertRenderable(label, markdown);
    return true;
  } catch (err) {
    problems.push({ label, message: (err as Error).message });
    return false;
  }
}

/**
 * Refuse an article that looks like one already in the workspace: its title gives the slug of an
 * existing article (the same title in any case or punctuation), so a retried create does not make
 * `title-2`. An explicit slug is checked by insertDraft itself.
 */
export async function refuseDuplicate(ctx: Ctx, ws: Workspace, input: ArticleCreateInput): Promise<void> {
  const data = parseInput(articleCreateInput, input, 'article');
  const title = data.title || leadingH1(data.bodyMarkdown);
  if (data.slug !== undefined || !title) return;
  const id = await store.articleWithSlug(ctx.db, ws.id, slugify(title) || 'article');
  if (!id) return;
  const same = (await store.findArticleById(ctx.db, id))!;
  throw new AppError(
    'duplicate_article',
    409,
    `An article with this title already exists: "${same.title}" (slug: ${same.slug}, id: ${same.id}, ${same.status}). Nothing was created. ` +
      'Update that one, or pass allowDuplicate: true to create another (it gets a numbered slug).',
    { details: { field: 'title', existingId: same.id } },
  );
}

/** The workspace's articles with these slugs, by slug. */
export async function articlesBySlug(ctx: Ctx, ws: Workspace, slugs: string[]): Promise<Map<string, Article>> {
  const wanted = new Set(slugs);
  return new Map((await store.findArticles(ctx.db, ws.id, [...wanted])).filter((a) => wanted.has(a.slug.normalize('NFC'))).map((a) => [a.slug.normalize('NFC'), a]));
}

/** The workspace's other articles competing with this one for its focus keyword, in any spelling (keywordFamily). */
export async function focusKeywordRivals(ctx: Ctx, ws: Workspace, article: Pick<Article, 'id' | 'focusKeyword'>): Promise<KeywordRival[]> {
  const family = article.focusKeyword ? keywordFamily(article.focusKeyword) : '';
  return family ? store.articlesInFocusFamily(ctx.db, ws.id, family, article.id) : [];
}

/** Edit the article. The live snapshot is untouched until the article is republished. */
export async function updateArticle(ctx: Ctx, ws: Workspace, ref: string, input: ArticleUpdateInput): Promise<Article> {
  const article = await getArticle(ctx, ws, ref);
  const data = parseInput(articleUpdateInput, input, 'article');
  const patch: Partial<Article> = { ...data, updatedAt: nowIso(ctx.clock) } as Partial<Article>;
  if (Object.values(data).every((v) => v === undefined)) throw invalidInput('Nothing to change: pass at least one field');
  if (data.bodyMarkdown !== undefined) assertRenderable(data.slug ?? article.slug, data.bodyMarkdown);
  if (data.slug !== undefined) await assertSlugFree(ctx, ws, data.slug, article.id);
  try {
    await store.updateArticleRow(ctx.db, article.id, patch);
  } catch (err) {
    translateDbError(err, { unique: slugTaken(data.slug ?? '', ws) });
  }
  return (await store.findArticleById(ctx.db, article.id))!;
}

export async function getArticle(ctx: Ctx, ws: Workspace, ref: string): Promise<Article> {
  const article = await store.findArticle(ctx.db, ws.id, ref);
  if (!article) throw notFound('article', ref, { hint: `List articles with: svc articles list --workspace ${ws.name}` });
  return article;
}

export async function listArticles(ctx: Ctx, ws: Workspace, input: ArticleListInput = {}) {
  const opts = parseInput(articleListInput, input, 'list options');
  const { articles, total } = await store.listArticleRows(ctx.db, ws.id, opts);
  return { articles, total, limit: opts.limit, offset: opts.offset };
}

/**
 * Title-derived slug, made unique in the workspace with -2, -3 ... The candidates are looked up
 * by exact slug, 100 at a time: a prefix match (LIKE) cannot seek the slug index on SQLite, which
 * then read every article of the workspace.
 */
export async function uniqueSlug(ctx: Ctx, workspaceId: string, title: string): Promise<string> {
  const base = slugify(title) || 'article';
  for (let from = 1; ; from += 100) {
    const candidates = Array.from({ length: 100 }, (_, i) => (from + i === 1 ? base : `${base}-${from + i}`));
    const taken = await store.takenSlugs(ctx.db, workspaceId, candidates);
    const free = candidates.find((c) => !taken.has(c));
    if (free) return free;
  }
}

/**
 * The unique index compares bytes; this also finds a slug stored before NFC was the rule (the
 * same characters in NFD), so two articles never answer to one URL.
 */
async function assertSlugFree(ctx: Ctx, ws: Workspace, slug: string, exceptId?: string): Promise<void> {
  if (await store.articleWithSlug(ctx.db, ws.id, slug, exceptId)) throw conflict(slugTaken(slug, ws), { details: { field: 'slug' } });
}

const slugTaken = (slug: string, ws: Workspace) => `The slug "${slug}" is already used by another article in workspace ${ws.name}`;

