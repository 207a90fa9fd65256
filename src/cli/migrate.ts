import type { Command } from 'commander';
import { createApp, migrateLatest, migrateRollback, migrationStatus } from '../app.js';
import { createLogger } from '../lib/log.js';
import { usageError } from '../errors.js';
import { configFor } from './harness.js';
import { type Io, output } from './io.js';

export function registerMigrate(program: Command, io: Io): void {
  program
    .command('migrate')
    .description('apply pending database migrations (safe to run again)')
    .option('--status', 'list applied and pending migrations without changing anything')
    .option('--rollback', 'undo the last batch of migrations')
    .action(async (opts: { status?: boolean; rollback?: boolean }, command: Command) => {
      if (opts.status && opts.rollback) throw usageError('Pass --status or --rollback, not both');
      const global = command.optsWithGlobals();
      const config = configFor(io, global);
      const out = output(io, Boolean(global.json));
      // migrate: false, so --status and --rollback see the database as it is.
      const app = await createApp({ config, migrate: false, log: createLogger('warn', io.stderr) });
      try {
        if (opts.status) {
          const status = await migrationStatus(app.db);
          out.result(status, () =>
            [...status.applied.map((m) => `applied  ${m}`), ...status.pending.map((m) => `pending  ${m}`), `${status.applied.length} applied, ${status.pending.length} pending`].join('\n'),
          );
        } else if (opts.rollback) {
          const rolledBack = await migrateRollback(app.db);
          out.result({ rolledBack }, () => (rolledBack.length ? rolledBack.map((m) => `rolled back  ${m}`).join('\n') : 'Nothing to roll back'));
        } else {
          const applied = await migrateLatest(app.db);
          out.result({ applied }, () => (applied.length ? applied.map((m) => `applied  ${m}`).join('\n') : 'Already up to date'));
        }
      } finally {
        await app.close();
      }
    });
}
