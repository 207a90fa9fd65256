import path from 'node:path';
import type { Command } from 'commander';
import { ARTICLE_STATUSES, type ArticleCreateInput, type ArticleUpdateInput } from '../articles/inputs.js';
import { POST_FILE_MAX_BYTES } from '../articles/body-limits.js';
import { getArticle, listArticles, updateArticle } from '../articles/service.js';
import { createArticle } from '../publishing/create.js';
import type { Article } from '../articles/types.js';
import { describePublishError } from '../publishing/failures.js';
import { deleteArticle, unpublishArticle } from '../publishing/publish.js';
import { type PublicationState, describeDestination, publicationState } from '../publishing/state.js';
import { AppError, usageError } from '../errors.js';
import { decodeUtf8, readTextFile } from '../lib/text-file.js';
import { confirm } from './ask.js';
import { YES_OPTION } from './destructive.js';
import { act, choiceOption, intOption, WORKSPACE_OPTION } from './harness.js';
import { type Io, table } from './io.js';
import { registerImport } from './articles-import.js';
import { registerPublish } from './articles-publish.js';
import { webhookQueueNote } from './webhooks.js';
import { parseDuration } from '../config/duration.js';
import { createPreview, revokeArticlePreviews } from '../publishing/previews.js';

interface FieldOptions {
  title?: string;
  slug?: string;
  type?: string;
  body?: string;
  bodyFile?: string;
  metaTitle?: string;
  metaDescription?: string;
  focusKeyword?: string;
  keywords?: string;
  image?: string;
  imageAlt?: string;
  author?: string;
  targetLength?: string;
}

function fieldOptions(cmd: Command): Command {
  return cmd
    .option('--title <title>', 'the H1 (default: the "# " heading that opens the body)')
    .option('--slug <slug>', 'URL slug (default: from the title, unique in the workspace)')
    .option('--type <contentType>', 'BLOG_POST | GUIDE | HOW_TO | LISTICLE | COMPARISON')
    .option('--body <markdown>', 'body as markdown')
    .option('--body-file <path>', 'read the markdown body from a file (- for stdin)')
    .option('--meta-title <text>', 'SEO title')
    .option('--meta-description <text>', 'SEO description')
    .option('--focus-keyword <kw>', 'primary keyword')
    .option('--keywords <list>', 'secondary keywords, comma separated')
    .option('--image <url>', 'featured image URL')
    .option('--image-alt <text>', 'featured image alt text')
    .option('--author <name>', 'author')
    .option('--target-length <words>', 'word count the article is written to');
}

async function fieldsFrom(io: Io, o: FieldOptions): Promise<ArticleUpdateInput> {
  if (o.body !== undefined && o.bodyFile !== undefined) throw usageError('Pass --body or --body-file, not both');
  let body = o.body;
  if (o.bodyFile !== undefined) body = o.bodyFile === '-' ? await readStream(io.stdin) : await readTextFile(path.resolve(io.cwd, o.bodyFile), POST_FILE_MAX_BYTES);
  return {
    title: o.title,
    slug: o.slug,
    contentType: o.type,
    bodyMarkdown: body,
    metaTitle: o.metaTitle,
    metaDescription: o.metaDescription,
    focusKeyword: o.focusKeyword,
    secondaryKeywords: o.keywords,
    featuredImageUrl: o.image,
    imageAlt: o.imageAlt,
    author: o.author,
    targetLength: o.targetLength === undefined ? undefined : intOption(o.targetLength, '--target-length', 0, 100_000),
  };
}

export function registerArticles(program: Command, io: Io): void {
  const articles = program.command('articles').alias('article').description('write, import, list and publish articles');

  fieldOptions(articles.command('add').description('create an article (a draft, or published at once when the workspace auto-publishes)').option(...WORKSPACE_OPTION)).action(
    act<FieldOptions & { workspace?: string }>(io, async ({ app, opts, out, workspace }) => {
      const ws = await workspace();
      const fields = await fieldsFrom(io, opts);
      const { article, published } = await createArticle(app, ws, { ...fields, bodyMarkdown: fields.bodyMarkdown ?? '' } as ArticleCreateInput);
      out.result({ ...article, published }, () => `Created ${article.status} article ${article.slug} (${article.id})${published ? ' and published it (auto-publish is on)' : ''}`);
    }),
  );

  registerImport(articles, io);

  articles
    .command('list')
    .description('list articles, newest first')
    .option(...WORKSPACE_OPTION)
    .option('--status <status>', 'draft | scheduled | published')
    .option('--limit <n>', 'how many', '50')
    .option('--offset <n>', 'skip this many', '0')
    .action(
      act<{ workspace?: string; status?: string; limit: string; offset: string }>(io, async ({ app, opts, out, workspace }) => {
        const ws = await workspace();
        const page = await listArticles(app, ws, {
          status: opts.status === undefined ? undefined : choiceOption(opts.status, '--status', ARTICLE_STATUSES),
          limit: intOption(opts.limit, '--limit', 1, 500),
          offset: intOption(opts.offset, '--offset', 0),
        });
        const rows = page.articles.map(({ bodyMarkdown: _b, ...rest }) => rest);
        const shown = rows.map((r) => (r.publishError ? { ...r, status: `${r.status} (publish failed)` } : r));
        const failed = rows.filter((r) => r.publishError).map((r) => r.slug);
        const why = failed.length ? `\n${failed.length} scheduled publish${failed.length === 1 ? '' : 'es'} failed; svc articles show ${failed[0]} says why` : '';
        // Scheduled articles show when they go out (UTC, to the minute).
        const scheduled = opts.status === 'scheduled' || rows.some((r) => r.status === 'scheduled');
        const columns = scheduled ? ['id', 'slug', 'status', 'scheduledAt', 'contentType', 'title', 'updatedAt'] : ['id', 'slug', 'status', 'contentType', 'title', 'updatedAt'];
        const view = shown.map((r) => ({ ...r, scheduledAt: r.scheduledAt ? r.scheduledAt.slice(0, 16).replace('T', ' ') : null }));
        out.result({ ...page, articles: rows }, () => `${table(view, columns)}\n${pageLine(rows.length, page.total, page.offset ?? 0)}${why}`);
      }),
    );

  articles
    .command('show')
    .description('show an article')
    .argument('<id|slug>')
    .option(...WORKSPACE_OPTION)
    .action(
      act<{ workspace?: string }>(io, async ({ app, args, out, workspace }) => {
        const ws = await workspace();
        const a = await getArticle(app, ws, args[0]);
        const publication = await publicationState(app, ws, a);
        out.result({ ...a, publication }, () => describe(a, publication));
      }),
    );

  articles
    .command('preview')
    .description("a link that shows the article's current draft on your site (to the blog key's site only), until it expires or is revoked")
    .argument('<id|slug>')
    .option(...WORKSPACE_OPTION)
    .option('--expires-in <duration>', 'how long the link works, e.g. 30m, 2h, 7d (default: content.previewTtl, 24h)')
    .option('--revoke', "revoke every preview link of the article instead")
    .action(
      act<{ workspace?: string; expiresIn?: string; revoke?: boolean }>(io, async ({ app, args, opts, out, workspace }) => {
        const ws = await workspace();
        if (opts.revoke) {
          if (opts.expiresIn !== undefined) throw usageError('Pass --revoke or --expires-in, not both');
          const { article, revoked } = await revokeArticlePreviews(app, ws, args[0]);
          out.result({ id: article.id, slug: article.slug, revoked }, () => `Revoked ${revoked} preview link${revoked === 1 ? '' : 's'} of ${article.slug}`);
          return;
        }
        const ttlMs = opts.expiresIn === undefined ? undefined : parseDuration(opts.expiresIn);
        if (ttlMs === undefined && opts.expiresIn !== undefined) throw usageError(`--expires-in takes a duration such as 30m, 2h or 7d, not "${opts.expiresIn}"`);
        const grant = await createPreview(app, ws, args[0], { ttlMs });
        out.result(grant, () =>
          [
            `Preview of ${grant.slug} until ${grant.expiresAt}:`,
            grant.url ?? `(no site URL: set one with svc workspaces set --site-url, or add ?preview=TOKEN to the article's page yourself)`,
            `token: ${grant.token}`,
            `Revoke with: svc articles preview ${grant.slug} --revoke`,
          ].join('\n'),
        );
      }),
    );

  fieldOptions(articles.command('edit').description('change an article (the live copy changes only when you publish again)').argument('<id|slug>').option(...WORKSPACE_OPTION)).action(
    act<FieldOptions & { workspace?: string }>(io, async ({ app, args, opts, out, workspace }) => {
      const ws = await workspace();
      const before = await getArticle(app, ws, args[0]);
      const a = await updateArticle(app, ws, before.id, await fieldsFrom(io, opts));
      // A slug is part of a live URL: say what changing it means (links to the old URL break).
      if (a.slug !== before.slug && a.status === 'published') out.note(slugMoveNote(before.slug, a.slug));
      out.result(a, () => `Updated ${a.slug}${a.status === 'published' ? ' (publish again to update the live copy)' : ''}`);
    }),
  );

  articles
    .command('delete')
    .description('delete an article; it leaves the content API at once and webhooks hear article.deleted')
    .argument('<id|slug>')
    .option(...WORKSPACE_OPTION)
    .option(...YES_OPTION)
    .action(
      act<{ workspace?: string; yes?: boolean }>(io, async ({ app, args, opts, out, workspace }) => {
        const ws = await workspace();
        const a = await getArticle(app, ws, args[0]);
        await confirm(io, opts.yes, `Delete article ${a.slug}?`);
        const { notified } = await deleteArticle(app, ws, a.id);
        if (notified) out.note(await webhookQueueNote(app));
        out.result({ id: a.id, slug: a.slug, deleted: true }, () => `Deleted ${a.slug}`);
      }),
    );

  registerPublish(articles, io);

  articles
    .command('unpublish')
    .description('take an article down everywhere (waits for the webhook receiver to confirm)')
    .argument('<id|slug>')
    .option(...WORKSPACE_OPTION)
    .option('--force-notify', 'send the webhook receiver an article.unpublished even when svc does not count the article as published (e.g. a restore rolled it back)')
    .action(
      act<{ workspace?: string; forceNotify?: boolean }>(io, async ({ app, args, out, opts, workspace }) => {
        const result = await unpublishArticle(app, await workspace(), args[0], { forceNotify: opts.forceNotify });
        if (result.receiverNotTold) out.note(NOT_TOLD);
        if (result.notifiedOnly) return out.result(result, () => `Sent article.unpublished for ${result.article.slug} to the webhook receiver; it confirmed (svc had it as ${result.article.status} already)`);
        out.result(result, () => `Unpublished ${result.article.slug}${result.removedFrom.length ? ` from ${result.removedFrom.join(', ')}` : ''}`);
      }),
    );
}

const slugMoveNote = (from: string, to: string) =>
  `Note: the slug changes from "${from}" to "${to}" when you publish again. From then on the content API and the sitemap ` +
  `serve it only under the new slug (the old URL answers 404: add a redirect on your blog), and a webhook receiver gets ` +
  `article.updated with the new slug for the same article.id.`;

const NOT_TOLD = 'Note: the webhook is disabled, so its receiver was not told; remove the post there by hand (or enable the webhook first and publish/unpublish again).';

function describe(a: Article, p: PublicationState): string {
  const excerpt = a.bodyMarkdown.length > 400 ? `${a.bodyMarkdown.slice(0, 400)}...` : a.bodyMarkdown;
  return [
    `${a.title}`,
    `  id:          ${a.id}`,
    `  slug:        ${a.slug}`,
    `  status:      ${a.status}${a.scheduledAt ? ` (at ${a.scheduledAt})` : ''}`,
    ...(a.publishError ? [`  FAILED:      ${describePublishError(a)}`] : []),
    `  live:        ${p.live ? (p.url ?? 'yes (no site URL set)') : 'no'}${p.hasUnpublishedChanges ? ' (edited since its last publish)' : ''}`,
    ...(p.publishedAt ? [`  published:   ${p.publishedAt} (first publish)`] : []),
    ...p.destinations.map((d) => `  ${`${d.kind}:`.padEnd(12)} ${describeDestination(d).slice(d.kind.length + 2)}`),
    ...(a.importedPublishedAt ? [`  old date:    ${a.importedPublishedAt}${a.importedUpdatedAt ? ` (updated ${a.importedUpdatedAt})` : ''}, its first-publish time`] : []),
    `  type:        ${a.contentType}`,
    `  keywords:    ${[a.focusKeyword, ...a.secondaryKeywords].filter(Boolean).join(', ') || '-'}`,
    `  meta title:  ${a.metaTitle ?? '-'}`,
    `  description: ${a.metaDescription ?? '-'}`,
    `  image:       ${a.featuredImageUrl ?? '-'}`,
    `  author:      ${a.author ?? '-'}`,
    `  seo score:   ${a.seoScore ?? '-'}`,
    `  updated:     ${a.updatedAt}`,
    '',
    excerpt,
  ].join('\n');
}

async function readStream(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return decodeUtf8(Buffer.concat(chunks), 'stdin');
}

const count = (n: number) => n.toLocaleString('en-US');

/** "3 articles", or for part of the list "1-50 of 4,005 articles; --limit/--offset show others". */
export function pageLine(shown: number, total: number, offset: number): string {
  const noun = `article${total === 1 ? '' : 's'}`;
  if (shown === total) return `${count(total)} ${noun}`;
  if (shown === 0) return `none from --offset ${count(offset)}: there ${total === 1 ? 'is' : 'are'} ${count(total)} ${noun}`;
  return `${count(offset + 1)}-${count(offset + shown)} of ${count(total)} ${noun}; --limit/--offset show others`;
}
