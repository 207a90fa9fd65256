import path from 'node:path';
import type { Command } from 'commander';
import { backupDatabase } from '../backup/backup.js';
import { restoreDatabase } from '../backup/restore.js';
import type { RestoreDiff, RolledBackArticle } from '../backup/restore-diff.js';
import { confirm } from './ask.js';
import { YES_OPTION } from './destructive.js';
import { commandLogger, configFor } from './harness.js';
import { type Io, output } from './io.js';

/** `svc backup --out FILE` and `svc restore FILE` (docs/operations.md). */
export function registerBackup(program: Command, io: Io): void {
  program
    .command('backup')
    .description('write a consistent backup of the database while the daemon serves (SQLite: VACUUM INTO; PostgreSQL: pg_dump), then check it')
    .requiredOption('--out <file>', 'the backup file to write (never overwritten)')
    .action(async (opts: { out: string }, command: Command) => {
      const global = command.optsWithGlobals();
      const config = configFor(io, global);
      const out = output(io, Boolean(global.json));
      const result = await backupDatabase(config, path.resolve(io.cwd, opts.out), { env: io.env });
      out.result(result, () => `Backed up to ${result.file}: ${formatBytes(result.bytes)} in ${formatMs(result.durationMs)} (${result.method}; ${result.check})`);
    });

  program
    .command('restore')
    .description('replace the SQLite database with a backup (the daemon must be stopped); the previous file is kept')
    .argument('<file>', 'a file written by svc backup')
    .option(...YES_OPTION)
    .action(async (file: string, opts: { yes?: boolean }, command: Command) => {
      const global = command.optsWithGlobals();
      const config = configFor(io, global);
      const out = output(io, Boolean(global.json));
      const from = path.resolve(io.cwd, file);
      const result = await restoreDatabase(config, from, {
        log: commandLogger(io, config),
        // Asked once the backup is checked and staged, before anything is replaced.
        confirm: (target, diff) =>
          confirm(io, opts.yes, [`Replace the database ${target} with the backup ${from}?`, ...rolledBackLines(diff), `The current file is kept beside it as ${path.basename(target)}.before-restore-<time>.`].join('\n')),
      });
      out.result(result, () =>
        [
          `Restored ${result.database} from ${result.from}`,
          result.previous ? `The previous database is kept as ${result.previous}` : 'There was no database here before.',
          ...(result.migrated.length ? [`Migrated the backup to this svc: ${result.migrated.join(', ')}`] : []),
          ...rolledBackLines(result.rolledBack),
        ].join('\n'),
      );
    });
}

/** What the restore rolled back: published state of articles, then the row counts that differ. */
function rolledBackLines(diff: RestoreDiff | null): string[] {
  if (!diff) return [];
  if (diff.unpublished.length + diff.republished.length + diff.rows.length === 0) return ['Nothing rolled back: the restored database holds the same rows as the one it replaced.'];
  const article = (a: RolledBackArticle) => `  ${a.slug} (${a.workspace}): ${a.now ?? 'not there'} now -> ${a.after ?? 'not there'} after the restore`;
  const lines = ['Rolled back by this restore:'];
  if (diff.unpublished.length) {
    lines.push(`${diff.unpublished.length} article${diff.unpublished.length === 1 ? ' was' : 's were'} published and no longer ${diff.unpublished.length === 1 ? 'is' : 'are'} (a webhook receiver still shows ${diff.unpublished.length === 1 ? 'it' : 'them'}):`);
    lines.push(...diff.unpublished.map(article));
    lines.push('  take one down on the receiver with: svc articles unpublish <slug> --workspace <workspace> --force-notify');
  }
  if (diff.republished.length) {
    lines.push(`${diff.republished.length} article${diff.republished.length === 1 ? ' is' : 's are'} published again (the daemon serves ${diff.republished.length === 1 ? 'it' : 'them'}; a webhook receiver hears of ${diff.republished.length === 1 ? 'it' : 'them'} on the next publish):`);
    lines.push(...diff.republished.map(article));
  }
  if (diff.rows.length) lines.push(`Rows that differ: ${diff.rows.map((r) => `${r.table} ${r.now} -> ${r.after}`).join(', ')}`);
  return lines;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

export const formatMs = (ms: number) => (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);
