import { existsSync } from 'node:fs';
import type { DaemonRecord } from '../app.js';
import { settingSource, sqliteChosenBy } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { CONFIG_SEARCH, databaseIdentity, liveDaemons } from './harness.js';

export interface SettingsReport {
  /** The database this command uses: the PostgreSQL URL without its password, or the SQLite file. */
  database: string;
  /** Why this database: the setting and where it came from. */
  databaseChosenBy: string;
  configFile: string | null;
  /** The running daemons of this machine, each with whether it serves this command's database. */
  daemons: Array<{ pid: number; database: string; baseUrl: string | null; configFile: string | null; sameDatabase: boolean }>;
  warnings: string[];
}

/**
 * Which database and config file this command uses, and what the running daemons serve:
 * `svc migrate --status` and `svc doctor` show it, so a command run with other settings than the
 * daemon's is seen before it changes anything.
 */
export function settingsReport(config: Config): SettingsReport {
  const mine = databaseIdentity(config.database);
  const database = mine.replace(/^sqlite:/, '');
  const databaseChosenBy = config.database.client === 'pg' ? settingSource(config, 'database.url') : sqliteChosenBy(config);
  const daemons = liveDaemons(config).map((d: DaemonRecord) => ({
    pid: d.pid,
    database: d.database.replace(/^sqlite:/, ''),
    baseUrl: d.served?.baseUrl ?? null,
    configFile: d.configFile ?? null,
    sameDatabase: d.database === mine,
  }));
  const warnings: string[] = [];
  const serving = daemons.filter((d) => d.sameDatabase);
  if (daemons.length > 0 && serving.length === 0) {
    warnings.push(`no running daemon serves ${database}: what this command changes, the running daemon${daemons.length === 1 ? '' : 's'} (${daemons.map((d) => `pid ${d.pid}`).join(', ')}) do${daemons.length === 1 ? 'es' : ''} not serve. Run svc with the daemon's config file (--config).`);
  }
  for (const d of serving) {
    if (d.baseUrl && d.baseUrl !== config.server.baseUrl) warnings.push(`the daemon (pid ${d.pid}) serves ${d.baseUrl}, but this command's server.baseUrl is ${config.server.baseUrl} (${settingSource(config, 'server.baseUrl')})`);
    if (d.configFile !== config.source) warnings.push(`the daemon (pid ${d.pid}) read ${d.configFile ?? 'no config file'}, this command ${config.source ?? 'none'}`);
  }
  if (config.database.client === 'sqlite3' && !existsSync(config.database.filename)) warnings.push(`${database} does not exist yet`);
  return { database, databaseChosenBy, configFile: config.source, daemons, warnings };
}

export function settingsReportLines(report: SettingsReport): string[] {
  return [
    `database: ${report.database} (${report.databaseChosenBy})`,
    `config file: ${report.configFile ?? `none (looked for ${CONFIG_SEARCH})`}`,
    ...(report.daemons.length === 0
      ? ['daemon: none running on this machine']
      : report.daemons.map((d) => `daemon: pid ${d.pid} serves ${d.database}${d.baseUrl ? ` at ${d.baseUrl}` : ''} (config file ${d.configFile ?? 'none'})`)),
    ...report.warnings.map((w) => `warning: ${w}`),
  ];
}
