import type { Command } from 'commander';
import { createApp, isNewDatabase, migrateLatest, migrationStatus, rollbackLastBatch, servingDaemons } from '../app.js';
import { usageError } from '../errors.js';
import { confirm } from './ask.js';
import { YES_OPTION } from './destructive.js';
import { commandLogger, configFor, namingDatabase, newDatabaseGuard, refuseMissingDatabase, refuseNewSqliteFile } from './harness.js';
import { mayCreateDatabase } from './may-create.js';
import { settingsReport, settingsReportLines } from './settings-report.js';
import { type Io, output } from './io.js';

export function registerMigrate(program: Command, io: Io): void {
  mayCreateDatabase(program.command('migrate'))
    .description('apply pending database migrations (safe to run again)')
    .option('--status', 'list applied and pending migrations without changing anything')
    .option('--rollback', 'undo the last batch of migrations (never the install: that is a restore of a backup)')
    .option(...YES_OPTION)
    .action(async (opts: { status?: boolean; rollback?: boolean; yes?: boolean }, command: Command) => {
      if (opts.status && opts.rollback) throw usageError('Pass --status or --rollback, not both');
      const global = command.optsWithGlobals();
      const config = configFor(io, global);
      const out = output(io, Boolean(global.json));
      // migrate: false, so --status and --rollback see the database as it is. Waiting for another
      // migrator and repairs of knex's lock table are warnings on stderr.
      const log = commandLogger(io, config);
      // --status and --rollback only look at (or undo) what is there: they create no database.
      if (opts.status) refuseMissingDatabase(config, 'report');
      if (opts.rollback) refuseMissingDatabase(config, 'roll back');
      const guard = opts.status || opts.rollback ? undefined : newDatabaseGuard(config, global.newDatabase);
      refuseNewSqliteFile(config, guard);
      // Before the database is opened: opening a SQLite file that is not there creates it.
      const report = settingsReport(config);
      const app = await createApp({ config, migrate: false, log }).catch(namingDatabase(config));
      const daemons = () => servingDaemons(app.db, config);
      try {
        if (opts.status) {
          const status = await migrationStatus(app.db);
          out.result({ ...status, settings: report }, () => [...settingsReportLines(report), statusText(status)].join('\n'));
        } else if (opts.rollback) {
          const rolledBack = await rollbackLastBatch(app.db, {
            log,
            daemons,
            confirm: (batch) => confirm(io, opts.yes, `Undo ${batch.length} migration${batch.length === 1 ? '' : 's'} (${batch.join(', ')})? The tables and columns they added are dropped with their data.`),
          });
          out.result({ rolledBack }, () => (rolledBack.length ? rolledBack.map((m) => `rolled back  ${m}`).join('\n') : 'Nothing to roll back'));
        } else {
          if (guard && (await isNewDatabase(app.db))) guard();
          const applied = await migrateLatest(app.db, { log, daemons });
          out.result({ applied }, () => (applied.length ? applied.map((m) => `applied  ${m}`).join('\n') : 'Already up to date'));
        }
      } catch (err) {
        namingDatabase(config)(err);
      } finally {
        await app.close();
      }
    });
}

function statusText(status: { applied: string[]; pending: string[]; unknown: string[] }): string {
  const lines = [
    ...status.applied.map((m) => `applied  ${m}`),
    ...status.unknown.map((m) => `unknown  ${m}`),
    ...status.pending.map((m) => `pending  ${m}`),
    `${status.applied.length} applied, ${status.pending.length} pending${status.unknown.length ? `, ${status.unknown.length} unknown` : ''}`,
  ];
  if (status.unknown.length > 0) {
    lines.push('The unknown migrations were applied by a newer svc: upgrade this svc before it serves or changes this database.');
  }
  return lines.join('\n');
}
