import type { Command } from 'commander';
import { copyToPostgres, redact } from '../backup/copy-to-postgres.js';
import { confirm } from './ask.js';
import { YES_OPTION } from './destructive.js';
import { formatMs } from './backup.js';
import { commandLogger, configFor, daemonsServing } from './harness.js';
import { type Io, output } from './io.js';
import { progressBar } from './progress.js';

/** `svc db copy --to postgres://...`: move a SQLite installation to PostgreSQL (docs/operations.md). */
export function registerDb(program: Command, io: Io): void {
  const db = program.command('db').description('move the database between engines');
  db.command('copy')
    .description('copy this SQLite installation into an empty PostgreSQL database (a daemon may keep serving the source)')
    .requiredOption('--to <url>', 'the target, postgres://user@host:5432/db')
    .option('--force', "replace the svc data a non-empty target holds (its svc tables are emptied first)")
    .option(...YES_OPTION)
    .action(async (opts: { to: string; force?: boolean; yes?: boolean }, command: Command) => {
      const global = command.optsWithGlobals();
      const config = configFor(io, global);
      const out = output(io, Boolean(global.json));
      // The copy is of a snapshot: what a daemon still serving the file writes after it is not in it.
      const serving = daemonsServing(config);
      const again = `svc db copy --to ${redact(opts.to).replace(':***@', ':PASSWORD@')} --force`;
      if (opts.force && serving.length > 0) {
        out.note(
          `warning: the svc daemon (pid ${serving.map((d) => d.pid).join(', ')}) still serves ${config.database.filename}: what it writes after this copy's snapshot is not copied. For the final copy, stop it first, then run this again.`,
        );
      }
      if (opts.force && config.database.client === 'sqlite3') await confirm(io, opts.yes, `Empty every svc table in ${redact(opts.to)} and replace it with the data of ${config.database.filename ?? 'this installation'}? The svc data the target holds now is lost.`);
      let bar: ReturnType<typeof progressBar> | null = null;
      const result = await copyToPostgres(config, opts.to, {
        force: opts.force,
        log: commandLogger(io, config),
        onProgress: ({ done, total }) => {
          bar ??= progressBar(io, total, 'copying rows');
          bar.update(done);
        },
      });
      (bar as ReturnType<typeof progressBar> | null)?.done();
      out.result(result, () =>
        [
          ...result.tables.filter((t) => t.rows > 0).map((t) => `${t.table.padEnd(24)} ${t.rows}`),
          `Copied ${result.rows} rows in ${result.tables.length} tables from ${result.from} to ${result.to} in ${formatMs(result.durationMs)}; every table's row count matches.`,
          '',
          `${result.from} is now marked as moved: svc serve and svc commands refuse it, naming ${result.moved.to} (SVC_DATABASE_IGNORE_MOVED=true uses it anyway; deleting ${result.moved.marker} moves back).`,
          `To make the move permanent for the daemon and the CLI alike, set the URL in the config file both read (${config.source ?? `${io.cwd}/config.yaml, or the file SVC_CONFIG names`}):`,
          '  database:',
          `    url: ${result.to.replace(':***@', ':PASSWORD@')}`,
          'then restart the daemon. (SVC_DATABASE_URL works too, but only where it is set: the daemon\'s unit and every shell that runs svc.)',
          '',
          serving.length > 0
            ? `A daemon (pid ${serving.map((d) => d.pid).join(', ')}) served ${result.from} during this copy: what it wrote after the snapshot is not copied. To switch: stop it, run ${again} once more (the final, complete copy), set the URL as above, then start the daemon.`
            : `If a daemon was serving ${result.from} meanwhile, its later writes are not copied: stop it, run ${again} once more (the final copy), then set the URL and start it.`,
        ].join('\n'),
      );
    });
}
