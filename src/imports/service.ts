import type { Ctx } from '../context.js';
import { withTransaction } from '../db/tx.js';
import { AppError } from '../errors.js';
import { SCHEDULE_HORIZON_YEARS, checkScheduleRange } from '../lib/datetime.js';
import { type CheckedDraft, articlesBySlug, checkDrafts, insertDrafts } from '../articles/service.js';
import { leadingH1 } from '../lib/markdown.js';
import type { Article } from '../articles/types.js';
import { type PublishResult, destinations, firstPublishTimes } from '../publishing/publish-rows.js';
import { publishMany, scheduleMany } from '../publishing/publish-many.js';
import type { Workspace } from '../workspaces/types.js';
import { AuthorsFiles } from './authors-file.js';
import { SiteCollections, hugoSites, leaveOutPages } from './collections.js';
import { hexoAddresses } from './hexo-permalink.js';
import { findPostImages, storePostImages } from './images.js';
import { chooseLanguage } from './languages.js';
import { followLinks } from './links.js';
import { linksToOtherFiles } from './other-files.js';
import { SiteZones } from './site-zone.js';
import { isExport, listSources, readSource } from './sources.js';
import { type ImportItem, ImportNotes } from './types.js';

/**
 * A progress display for one phase (the CLI draws a bar on a terminal). `writes`: the phase writes
 * for good as it goes (a Ctrl-C then says how much is in); reading the files writes nothing.
 */
export type Progress = (label: string, total: number, writes?: boolean) => { update(done: number): void; done(): void };

export interface ImportOptions {
  /** Where relative paths start. */
  cwd: string;
  /** Publish what was imported (drafts stay drafts; future dates are scheduled). */
  publish?: boolean;
  /** Import what can be imported and report the rest; otherwise a bad file stops everything before anything is written. */
  keepGoing?: boolean;
  /** Refuse files with front matter keys svc does not carry over. */
  strict?: boolean;
  /** The old site's address for relative image paths (default: the workspace's site URL). */
  baseUrl?: string;
  /** The zone dates without one are read in (else the site config's, else UTC). */
  timeZone?: string;
  /** The language to import of a multilingual site (Hugo's `x.en.md`, `x/index.en.md`). */
  lang?: string;
  progress?: Progress;
}

/** What the report keeps of an article: no body, so an archive's report stays small. */
export type ImportedPost = Pick<Article, 'id' | 'slug' | 'title' | 'status' | 'scheduledAt' | 'importedPublishedAt' | 'importedUpdatedAt'>;

const post = (a: Article): ImportedPost => ({ id: a.id, slug: a.slug, title: a.title, status: a.status, scheduledAt: a.scheduledAt, importedPublishedAt: a.importedPublishedAt, importedUpdatedAt: a.importedUpdatedAt });

export interface ImportReport {
  imported: ImportedPost[];
  /** Found already imported unchanged (a re-run): left alone, published if still waiting to be. */
  already: ImportedPost[];
  published: ImportedPost[];
  scheduled: ImportedPost[];
  /** Imported and left as drafts (drafts on the old site, or no --publish). */
  drafts: ImportedPost[];
  failed: Array<{ source: string; error: string }>;
  /** One line per kind of note (skipped items, keys not carried over, dates read as UTC ...), naming every post each applies to. */
  notes: string[];
  /** The same notes for a terminal: one about many posts names a few and how many more. */
  briefNotes: string[];
  /** Slugs of the old site svc could not keep, with the new ones (also in notes). */
  moved: Array<{ source: string; from: string; to: string }>;
  /** Images beside the posts: how many the posts use, how many were stored new, and those left as written (also in notes). */
  images: { used: number; added: number; left: Array<{ source: string; image: string; reason: string }> };
}

const noProgress: Progress = () => ({ update() {}, done() {} });

/**
 * `svc articles import`: read every file (markdown with front matter, a Ghost JSON export, a
 * WordPress WXR export), check the whole batch, insert the drafts with their old dates, then
 * with `publish` publish them in batches (keeping the old first-publish times) and schedule the
 * future-dated ones. Without `keepGoing`, a bad file or post stops it before anything is written.
 */
export async function importFiles(ctx: Ctx, ws: Workspace, paths: string[], opts: ImportOptions): Promise<ImportReport> {
  const progress = opts.progress ?? noProgress;
  const notes = new ImportNotes();
  const readerOptions = { baseUrl: opts.baseUrl ?? (ws.siteUrl || ws.websiteUrl), strict: Boolean(opts.strict), now: ctx.clock.now().toISOString() };
  const items: ImportItem[] = [];
  const authors = new AuthorsFiles(notes);
  const zones = new SiteZones(notes);
  const collections = new SiteCollections(notes);
  const sources = chooseLanguage(await listSources(paths, opts.cwd, notes), opts.lang, notes);
  // 50,000 posts take a quarter of a minute to read before anything else shows.
  // One export (Ghost JSON, WordPress WXR) is one file: its bar counts the posts in it instead.
  const oneExport = sources.length === 1 && isExport(sources[0].file);
  let total = sources.length;
  let reading = oneExport ? noProgress('Reading', 0) : progress('Reading', total, false);
  const onItem = (done: number, items: number) => {
    if (done === 0) reading = progress('Reading', (total = items), false);
    reading.update(done);
  };
  try {
    for (const [n, src] of sources.entries()) {
      reading.update(n);
      const zone = opts.timeZone ?? (await zones.of(src.root));
      const read = await readSource(src, { ...readerOptions, zone, ...(oneExport ? { onItem } : {}) }, notes, authors, collections);
      // Hexo serves a post's asset folder beside the post: its old address is where those files still are.
      const hexo = await zones.hexoSite(src.root);
      if (hexo) hexoAddresses(hexo, read, zone);
      // Only the permalink needed the front matter as read; every post is held to the end of the import.
      for (const item of read) item.frontMatter = undefined; // not delete: that would slow every later access to the item
      items.push(...read);
    }
    reading.update(total);
  } finally {
    reading.done();
  }
  items.splice(0, items.length, ...leaveOutPages(items, notes, await hugoSites(items, notes)));
  uniqueSources(items, notes);
  followLinks(items, ws, readerOptions.baseUrl, notes);
  linksToOtherFiles(items, readerOptions.baseUrl, notes);
  const images = await findPostImages(ctx, items, notes);
  const publish = Boolean(opts.publish) || ws.autoPublish;
  if (opts.publish) await destinations(ctx, ws); // --publish with nowhere to publish: say so before writing anything
  const now = ctx.clock.now();
  for (const item of items) {
    // A Hexo post (a file under _posts) with no date in its front matter or file name: Hexo shows
    // the file's creation time, which a copy or a clone does not keep. A draft takes its date when
    // it is published, so the note says which date that is.
    if (!item.draft && !item.dates.publishedAt && item.file && item.file.split(/[\\/]/).includes('_posts')) {
      notes.warn(`Posts in _posts without a date were ${publish ? 'dated at import' : 'imported without one: publishing them dates them at the time they are published'} (Hexo dates them by their file's creation time, which a copy does not keep): give each a date: to keep the old one`, item.source);
    }
  }
  if (publish) {
    for (const item of items) {
      const at = item.dates.publishedAt;
      if (item.draft || !at || at <= now.toISOString()) continue;
      try {
        checkScheduleRange(at, at, now);
      } catch {
        // The old site shows it on that date; svc schedules no further ahead, so it waits as a draft.
        item.draft = true;
        notes.warn(`Posts dated more than ${SCHEDULE_HORIZON_YEARS} years ahead were imported as drafts (svc schedules at most ${SCHEDULE_HORIZON_YEARS} years ahead): publish or schedule them when the date is nearer`, item.source);
      }
    }
  }
  // A post already imported unchanged (a second run, e.g. after an interrupted one) is not a clash:
  // it is left as it is, and published below if it is still waiting to be.
  const existing = await articlesBySlug(ctx, ws, items.flatMap((i) => (i.input.slug ? [i.input.slug] : [])));
  const already = items.flatMap((item) => {
    const article = item.input.slug ? existing.get(item.input.slug) : undefined;
    return article && sameImport(article, item) ? [{ item, article }] : [];
  });
  if (already.length > 0) {
    for (const { item } of already) notes.skip('posts already imported unchanged (same slug, title, body and date), left as they are', item.source);
    const left = new Set(already.map((x) => x.item));
    items.splice(0, items.length, ...items.filter((i) => !left.has(i)));
  }
  // Each post is parsed once: the check keeps what it parsed, and the insert takes it from there.
  const checks: Array<{ label: string; input: ImportItem['input']; checked?: CheckedDraft }> = items.map((i) => ({ label: i.source, input: i.input }));
  for (const p of await checkDrafts(ctx, ws, checks)) notes.problem(p.label, p.message);
  const checked = new Map(items.map((item, i) => [item, checks[i].checked]));
  const failed = notes.problems.map((p) => ({ source: p.source, error: p.message }));
  if (failed.length > 0 && !opts.keepGoing) {
    throw new AppError('invalid_import', 400, `Nothing imported; fix these first (or pass --keep-going to import the rest):\n  ${failed.map((f) => `${f.source}: ${f.error}`).join('\n  ')}`, {
      details: { failed },
    });
  }
  const bad = new Set(failed.map((f) => f.source));
  const good = items.filter((i) => !bad.has(i.source));
  const stored = await storePostImages(ctx, ws, images, [...good, ...already.map((x) => x.item)]);
  // Inserted in the order publishMany publishes them (ids sort by when they were made): each
  // publish batch then writes the few index pages its neighbours share, not one page per post.
  const position = new Map(good.map((item, i) => [item, i]));
  const nowIso = now.toISOString();
  // Drafts last ('~' sorts after any date).
  const key = new Map(good.map((item) => [item, item.draft ? '~' : firstPublishTimes({ importedPublishedAt: item.dates.publishedAt ?? null, importedUpdatedAt: null, firstPublishedAt: null }, nowIso).publishedAt]));
  const publishOrder = [...good].sort((a, b) => (key.get(a)! < key.get(b)! ? -1 : key.get(a)! > key.get(b)! ? 1 : 0));
  const imported = (await insertAll(ctx, ws, publishOrder, checked, failed, Boolean(opts.keepGoing), progress)).sort((a, b) => position.get(a.item)! - position.get(b.item)!);
  const counted = stored.used > 0 ? [`Images beside the posts now served by svc: ${stored.used} (${stored.added} newly stored, ${stored.used - stored.added} stored already)`] : [];
  const report: ImportReport = {
    imported: imported.map((x) => post(x.article)),
    already: already.map((x) => post(x.article)),
    published: [],
    scheduled: [],
    drafts: [],
    failed,
    notes: [...notes.lines(), ...counted],
    briefNotes: [...notes.brief(), ...counted],
    moved: notes.movedSlugs,
    images: { ...stored, left: notes.imagesLeft },
  };
  if (!publish) {
    report.drafts = report.imported;
    return report;
  }
  const waiting = already.filter((x) => x.article.status === 'draft');
  const live = [...imported, ...waiting].filter((x) => !x.item.draft);
  const future = live.filter((x) => x.article.importedPublishedAt && x.article.importedPublishedAt > nowIso);
  const due = live.filter((x) => !future.includes(x));
  report.drafts = imported.filter((x) => x.item.draft).map((x) => post(x.article));
  if (ws.autoPublish && !opts.publish && !(await destinations(ctx, ws).then(() => true, () => false))) {
    const nowhere = 'Auto-publish is on but the workspace has nowhere to publish to: everything stays a draft';
    report.notes.push(nowhere);
    report.briefNotes.push(nowhere);
    report.drafts = report.imported;
    return report;
  }
  await scheduleMany(ctx, future.map((x) => ({ article: x.article, at: x.article.importedPublishedAt! })));
  report.scheduled = future.map((x) => ({ ...post(x.article), status: 'scheduled' as const, scheduledAt: x.article.importedPublishedAt }));
  const bar = progress('Publishing', due.length);
  try {
    const onPublished = (results: PublishResult[]) => report.published.push(...results.map((r) => post(r.article)));
    const result = await publishMany(ctx, ws, due.map((x) => x.article), { keepGoing: opts.keepGoing, onProgress: (n) => bar.update(n), onPublished });
    const sourceOf = new Map(live.map((x) => [x.article.id, x.item.source]));
    for (const f of result.failed) failed.push({ source: sourceOf.get(f.article.id) ?? f.article.slug, error: f.error.message });
  } finally {
    bar.done();
  }
  return report;
}

/** Drafts per transaction: a few multi-row statements, a few tens of milliseconds of writing. */
const INSERT_BATCH = 1_000;

/** Insert the drafts INSERT_BATCH to a transaction; with keepGoing a failing batch is retried one by one to name the bad post. */
async function insertAll(ctx: Ctx, ws: Workspace, items: ImportItem[], checked: Map<ImportItem, CheckedDraft | undefined>, failed: ImportReport['failed'], keepGoing: boolean, progress: Progress) {
  const out: Array<{ item: ImportItem; article: Article }> = [];
  const insert = async (batch: ImportItem[]) => {
    const inserted = await withTransaction(ctx.db, (trx) => insertDrafts({ ...ctx, db: trx }, ws, batch.map((item) => ({ input: item.input, imported: item.dates, checked: checked.get(item) }))));
    return batch.map((item, i) => ({ item, article: inserted[i] }));
  };
  const bar = progress('Importing', items.length);
  try {
    for (let i = 0; i < items.length; i += INSERT_BATCH) {
      const batch = items.slice(i, i + INSERT_BATCH);
      try {
        out.push(...(await insert(batch)));
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        for (const item of batch) {
          try {
            out.push(...(await insert([item])));
          } catch (one) {
            if (!(one instanceof AppError)) throw one;
            if (!keepGoing) throw new AppError(one.code, one.status, `${item.source}: ${one.message} (${out.length} of ${items.length} imported before it)`, { hint: one.hint });
            failed.push({ source: item.source, error: one.message });
          }
        }
      }
      bar.update(out.length);
    }
  } finally {
    bar.done();
  }
  return out;
}

/** The same post as one already imported: its slug, title, body and date. */
function sameImport(a: Article, item: ImportItem): boolean {
  const title = item.input.title?.trim() || leadingH1(item.input.bodyMarkdown ?? '');
  return a.title === title && a.bodyMarkdown === (item.input.bodyMarkdown ?? '') && a.importedPublishedAt === (item.dates.publishedAt ?? null);
}

/**
 * Problems are matched to posts by their source, so two posts must never share one (two would
 * be left out for one reported): a repeated source gets a number.
 */
function uniqueSources(items: ImportItem[], notes: ImportNotes): void {
  const used = new Set(notes.problems.map((p) => p.source));
  for (const item of items) {
    let source = item.source;
    for (let n = 2; used.has(source); n++) source = `${item.source} (${n})`;
    item.source = source;
    used.add(source);
  }
}
