import path from 'node:path';
import type { Command } from 'commander';
import { backupDatabase } from '../backup/backup.js';
import { restoreDatabase } from '../backup/restore.js';
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
      const result = await backupDatabase(config.database, path.resolve(io.cwd, opts.out), { env: io.env });
      out.result(result, () => `Backed up to ${result.file}: ${formatBytes(result.bytes)} in ${formatMs(result.durationMs)} (${result.method}; ${result.check})`);
    });

  program
    .command('restore')
    .description('replace the SQLite database with a backup (the daemon must be stopped); the previous file is kept')
    .argument('<file>', 'a file written by svc backup')
    .action(async (file: string, _opts: unknown, command: Command) => {
      const global = command.optsWithGlobals();
      const config = configFor(io, global);
      const out = output(io, Boolean(global.json));
      const result = await restoreDatabase(config.database, path.resolve(io.cwd, file), { log: commandLogger(io, config) });
      out.result(result, () =>
        [
          `Restored ${result.database} from ${result.from}`,
          result.previous ? `The previous database is kept as ${result.previous}` : 'There was no database here before.',
          ...(result.migrated.length ? [`Migrated the backup to this svc: ${result.migrated.join(', ')}`] : []),
        ].join('\n'),
      );
    });
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

export const formatMs = (ms: number) => (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);
