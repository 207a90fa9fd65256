import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { parseMarkdownFile } from '../articles/front-matter.js';
import { ARTICLE_STATUSES, type ArticleCreateInput, type ArticleUpdateInput } from '../articles/inputs.js';
import { checkDrafts, getArticle, listArticles, updateArticle } from '../articles/service.js';
import { createArticle } from '../publishing/create.js';
import type { Article } from '../articles/types.js';
import { deleteArticle, publishArticle, scheduleArticle, unpublishArticle } from '../publishing/publish.js';
import { AppError, usageError } from '../errors.js';
import { confirm } from './ask.js';
import { act, choiceOption, intOption } from './harness.js';
import { type Io, table } from './io.js';
import { progressBar } from './progress.js';
import { webhookQueueNote } from './webhooks.js';

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

const WS = ['-w, --workspace <id|name>', 'workspace (optional when there is only one)'] as const;

function fieldOptions(cmd: Command): Command {
  return cmd
    .option('--title <title>', 'the H1 (default: the first "# " heading of the body)')
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
  if (o.bodyFile !== undefined) body = o.bodyFile === '-' ? await readStream(io.stdin) : await readText(path.resolve(io.cwd, o.bodyFile));
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

  fieldOptions(articles.command('add').description('create an article (a draft, or published at once when the workspace auto-publishes)').option(...WS)).action(
    act<FieldOptions & { workspace?: string }>(io, async ({ app, opts, out, workspace }) => {
      const ws = await workspace();
      const fields = await fieldsFrom(io, opts);
      const { article, published } = await createArticle(app, ws, { ...fields, bodyMarkdown: fields.bodyMarkdown ?? '' } as ArticleCreateInput);
      out.result({ ...article, published }, () => `Created ${article.status} article ${article.slug} (${article.id})${published ? ' and published it (auto-publish is on)' : ''}`);
    }),
  );

  articles
    .command('import')
    .description('import markdown files with YAML front matter (title, slug, contentType, metaTitle, metaDescription, focusKeyword, keywords, image, imageAlt, author, targetLength)')
    .argument('<files...>', 'markdown files')
    .option(...WS)
    .action(
      act<{ workspace?: string }>(io, async ({ app, args, out, workspace }) => {
        const ws = await workspace();
        // Read and check every file first: a bad file stops the import before anything is written.
        const inputs: Array<{ file: string; input: ArticleCreateInput }> = [];
        const problems: string[] = [];
        for (const file of args) {
          try {
            inputs.push({ file, input: parseMarkdownFile(await readText(path.resolve(io.cwd, file)), file) });
          } catch (err) {
            if (!(err instanceof AppError)) throw err;
            problems.push(err.message);
          }
        }
        // Then check them as a batch (fields, titles, slugs), so a bad file never leaves half an import.
        if (!problems.length) problems.push(...(await checkDrafts(app, ws, inputs.map(({ file, input }) => ({ label: file, input })))));
        if (problems.length) {
          throw new AppError('invalid_front_matter', 400, `Nothing imported; fix these files first:\n  ${problems.join('\n  ')}`);
        }
        const bar = progressBar(io, inputs.length, 'Importing');
        const created: Article[] = [];
        for (const { file, input } of inputs) {
          try {
            created.push((await createArticle(app, ws, input)).article);
          } catch (err) {
            bar.done();
            if (err instanceof AppError) {
              throw new AppError(err.code, err.status, `${file}: ${err.message} (${created.length} of ${inputs.length} imported before it)`, { hint: err.hint });
            }
            throw err;
          }
          bar.tick();
        }
        bar.done();
        out.result(created, () => `Imported ${created.length} article${created.length === 1 ? '' : 's'} into ${ws.name}\n${table(created, ['slug', 'status', 'id'])}`);
      }),
    );

  articles
    .command('list')
    .description('list articles, newest first')
    .option(...WS)
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
        out.result({ ...page, articles: rows }, () => `${table(rows, ['id', 'slug', 'status', 'contentType', 'title', 'updatedAt'])}\n${page.total} article${page.total === 1 ? '' : 's'}`);
      }),
    );

  articles
    .command('show')
    .description('show an article')
    .argument('<id|slug>')
    .option(...WS)
    .action(
      act<{ workspace?: string }>(io, async ({ app, args, out, workspace }) => {
        const a = await getArticle(app, await workspace(), args[0]);
        out.result(a, () => describe(a));
      }),
    );

  fieldOptions(articles.command('edit').description('change an article (the live copy changes only when you publish again)').argument('<id|slug>').option(...WS)).action(
    act<FieldOptions & { workspace?: string }>(io, async ({ app, args, opts, out, workspace }) => {
      const ws = await workspace();
      const before = await getArticle(app, ws, args[0]);
      const a = await updateArticle(app, ws, before.id, await fieldsFrom(io, opts));
      // A slug is part of a live URL: say what changing it means (issue 13, never renamed silently).
      if (a.slug !== before.slug && a.status === 'published') out.note(slugMoveNote(before.slug, a.slug));
      out.result(a, () => `Updated ${a.slug}${a.status === 'published' ? ' (publish again to update the live copy)' : ''}`);
    }),
  );

  articles
    .command('delete')
    .description('delete an article; it leaves the content API at once and webhooks hear article.deleted')
    .argument('<id|slug>')
    .option(...WS)
    .option('-y, --yes', 'do not ask for confirmation')
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

  articles
    .command('publish')
    .description('publish (or republish) to every enabled destination, or one with --to')
    .argument('<id|slug>')
    .option(...WS)
    .option('--to <kind>', 'headless | webhook')
    .action(
      act<{ workspace?: string; to?: string }>(io, async ({ app, args, opts, out, workspace }) => {
        if (opts.to && opts.to !== 'headless' && opts.to !== 'webhook') throw usageError(`--to takes headless or webhook, not "${opts.to}"`);
        const result = (await publishArticle(app, await workspace(), args[0], { to: opts.to as 'headless' | 'webhook' | undefined }))!;
        if (result.targets.some((t) => t.kind === 'webhook')) out.note(await webhookQueueNote(app));
        out.result(result, () => `Published ${result.article.slug} to ${result.targets.map((t) => `${t.kind} (${t.event})`).join(', ')}`);
      }),
    );

  articles
    .command('unpublish')
    .description('take an article down everywhere (waits for the webhook receiver to confirm)')
    .argument('<id|slug>')
    .option(...WS)
    .action(
      act<{ workspace?: string }>(io, async ({ app, args, out, workspace }) => {
        const result = await unpublishArticle(app, await workspace(), args[0]);
        if (result.receiverNotTold) out.note(NOT_TOLD);
        out.result(result, () => `Unpublished ${result.article.slug}${result.removedFrom.length ? ` from ${result.removedFrom.join(', ')}` : ''}`);
      }),
    );

  articles
    .command('schedule')
    .description('publish the article automatically at a time (the daemon must be running)')
    .argument('<id|slug>')
    .option(...WS)
    .requiredOption('--at <iso>', 'when, e.g. 2026-12-01T09:00:00Z')
    .action(
      act<{ workspace?: string; at: string }>(io, async ({ app, args, opts, out, workspace }) => {
        const a = await scheduleArticle(app, await workspace(), args[0], opts.at);
        out.result(a, () => `Scheduled ${a.slug} for ${a.scheduledAt}`);
      }),
    );
}

const slugMoveNote = (from: string, to: string) =>
  `Note: the slug changes from "${from}" to "${to}" when you publish again. From then on the content API and the sitemap ` +
  `serve it only under the new slug (the old URL answers 404: add a redirect on your blog), and a webhook receiver gets ` +
  `article.updated with the new slug for the same article.id.`;

const NOT_TOLD = 'Note: the webhook is disabled, so its receiver was not told; remove the post there by hand (or enable the webhook first and publish/unpublish again).';

function describe(a: Article): string {
  const excerpt = a.bodyMarkdown.length > 400 ? `${a.bodyMarkdown.slice(0, 400)}...` : a.bodyMarkdown;
  return [
    `${a.title}`,
    `  id:          ${a.id}`,
    `  slug:        ${a.slug}`,
    `  status:      ${a.status}${a.scheduledAt ? ` (at ${a.scheduledAt})` : ''}`,
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

async function readText(file: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EISDIR') throw new AppError('file_not_found', 400, `${file} is a directory, not a markdown file`);
    throw new AppError('file_not_found', 400, code === 'ENOENT' ? `No such file: ${file}` : `Cannot read ${file}: ${(err as Error).message}`);
  }
  return utf8(bytes, file);
}

async function readStream(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return utf8(Buffer.concat(chunks), 'stdin');
}

/** Markdown must be UTF-8 text: a binary or Latin-1 file would be stored with its bytes replaced. */
function utf8(bytes: Buffer, source: string): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new AppError('invalid_encoding', 400, `${source} is not UTF-8 text`, { hint: 'Save it as UTF-8 (e.g. iconv -f latin1 -t utf-8).' });
  }
  if (text.includes('\0')) throw new AppError('invalid_encoding', 400, `${source} is a binary file, not markdown text`);
  return text;
}
