import type { Command } from 'commander';
import { AppError, usageError } from '../errors.js';
import { isTimeZone } from '../lib/datetime.js';
import type { ImportReport, ImportedPost } from '../imports/service.js';
import { act, servedCtx, WORKSPACE_OPTION } from './harness.js';
import { type Io, table } from './io.js';
import { interruptionGuard, progressBar } from './progress.js';

const SHOWN = 50;

/** `svc articles import`: markdown files and folders, Ghost JSON and WordPress WXR exports. */
export function registerImport(articles: Command, io: Io): void {
  articles
    .command('import')
    .description('import markdown files or folders (Hugo, Jekyll, Astro, Next.js front matter), a Ghost JSON export or a WordPress WXR export; see docs/importing.md')
    .argument('<paths...>', 'markdown files, folders of them, export.json (Ghost), export.xml (WordPress)')
    .option(...WORKSPACE_OPTION)
    .option('--publish', 'publish what was imported, keeping each post\'s date as its first-publish time (drafts stay drafts; future dates are scheduled)')
    .option('--keep-going', 'import what can be imported and report the files or posts that cannot (exit 1 when any could not)')
    .option('--strict', 'refuse files whose front matter has keys svc does not carry over')
    .option('--lang <code>', 'a multilingual site (Hugo\'s post.en.md, post/index.zh-cn.md): import this language only, with the translations\' suffix left out of the slugs')
    .option('--timezone <zone>', 'the time zone dates without one are read in (e.g. Europe/Berlin; default: the site config\'s timezone, else UTC)')
    .option('--base-url <url>', 'the old site\'s address, for images given as /paths and Ghost\'s __GHOST_URL__ (default: the workspace site URL)')
    .action(
      act<{ workspace?: string; publish?: boolean; keepGoing?: boolean; strict?: boolean; baseUrl?: string; lang?: string; timezone?: string }>(io, async ({ app, args, opts, out, workspace }) => {
        const ws = await workspace();
        if (opts.baseUrl !== undefined && !(/^https?:\/\//i.test(opts.baseUrl) && URL.canParse(opts.baseUrl))) {
          throw usageError(`--base-url takes an http(s) address, not "${opts.baseUrl}"`);
        }
        if (opts.lang !== undefined && !/^[a-z]{2,3}(-[a-z0-9]{2,8})?$/i.test(opts.lang)) throw usageError(`--lang takes a language code such as en, fr or zh-cn, not "${opts.lang}"`);
        if (opts.timezone !== undefined && !isTimeZone(opts.timezone)) throw usageError(`--timezone takes a time zone name such as Europe/Berlin or America/New_York, not "${opts.timezone}"`);
        // Loaded here: the format readers (turndown, an XML and a TOML parser) would slow every other command's start.
        const { importFiles } = await import('../imports/service.js');
        const resumable = { rerun: opts.publish ? 'posts already imported are skipped, those still drafts published' : 'posts already imported are skipped' };
        // Reading and checking the files writes nothing, and a Ctrl-C there says so too.
        const guard = interruptionGuard(io, 'Reading the files', resumable);
        const report = await importFiles(servedCtx(app, out), ws, args, {
          cwd: io.cwd,
          publish: opts.publish,
          keepGoing: opts.keepGoing,
          strict: opts.strict,
          baseUrl: opts.baseUrl,
          lang: opts.lang,
          timeZone: opts.timezone,
          progress: (label, total, writes = true) => progressBar(io, total, label, writes ? resumable : undefined),
        }).finally(() => guard.done());
        for (const line of report.briefNotes) out.note(`note: ${line}`);
        const json = { workspace: ws.name, counts: counts(report), imported: report.imported.map(summary(report)), failed: report.failed, moved: report.moved, images: report.images, notes: report.notes };
        if (report.failed.length > 0) {
          // --keep-going: the rest is in; the command still fails so scripts notice.
          if (!out.json) out.result(json, () => human(ws.name, report));
          throw new AppError('import_incomplete', 400, `${report.failed.length} could not be imported:\n  ${report.failed.map((f) => `${f.source}: ${f.error}`).join('\n  ')}`, { details: json });
        }
        out.result(json, () => human(ws.name, report));
      }),
    );
}

function counts(r: ImportReport) {
  return { imported: r.imported.length, already: r.already.length, published: r.published.length, scheduled: r.scheduled.length, drafts: r.drafts.length, failed: r.failed.length };
}

/** An imported article as listed: its state after the command, and its date from the old site. */
function summary(r: ImportReport) {
  const state = new Map<string, ImportedPost>([...r.published, ...r.scheduled].map((a) => [a.id, a]));
  return (a: ImportedPost) => {
    const now = state.get(a.id) ?? a;
    return { id: a.id, slug: a.slug, title: a.title, status: now.status, date: a.importedPublishedAt, updated: a.importedUpdatedAt };
  };
}

function human(wsName: string, r: ImportReport): string {
  const c = counts(r);
  const parts = [c.published && `${c.published} published`, c.scheduled && `${c.scheduled} scheduled`, c.drafts && `${c.drafts} draft${c.drafts === 1 ? '' : 's'}`].filter(Boolean);
  const rows = r.imported.map(summary(r));
  return [
    `Imported ${c.imported} article${c.imported === 1 ? '' : 's'} into ${wsName}${c.already ? ` (${c.already} already there)` : ''}${parts.length ? `: ${parts.join(', ')}` : ''}`,
    ...(rows.length ? [table(rows.slice(0, SHOWN), ['slug', 'status', 'date', 'id'])] : []),
    ...(rows.length > SHOWN ? [`... and ${rows.length - SHOWN} more (svc articles list)`] : []),
  ].join('\n');
}
