import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { type App, type DaemonRecord, cannotReach, createApp, isNewDatabase, noSvcDatabase, daemonsElsewhere, databaseIdentity, liveDaemons } from '../app.js';
import { databaseSettingsHint, loadConfig, settingSource, sqliteChosenBy } from '../config/load.js';
import type { Config } from '../config/schema.js';
// The settings report (settings-report.ts) reads the daemon records through the composition root too.
export { databaseIdentity, liveDaemons } from '../app.js';
// `svc doctor` opens the database without migrating (act's `migrate: false`) and reports what migrating would do.
export { type MigrationStatus, breakingMigrations, migrationStatus, servingDaemons } from '../app.js';
import type { Ctx } from '../context.js';
import { type Logger, createLogger } from '../lib/log.js';
import { AppError, usageError } from '../errors.js';
import { resolveWorkspace } from '../workspaces/service.js';
import type { Workspace } from '../workspaces/types.js';
import { type Io, type Output, output } from './io.js';
import { declaredMayCreateDatabase } from './may-create.js';

export interface GlobalOptions {
  config?: string;
  json?: boolean;
  /** Create a new database even though a running daemon serves another. */
  newDatabase?: boolean;
}

export interface ActionContext<O> {
  app: App;
  opts: O & GlobalOptions;
  args: string[];
  out: Output;
  io: Io;
  /** The --workspace option resolved (optional when only one workspace exists). */
  workspace(): Promise<Workspace>;
}

export function configFor(io: Io, opts: GlobalOptions, overrides?: Record<string, unknown>): Config {
  return loadConfig({ env: io.env, cwd: io.cwd, configPath: opts.config, overrides });
}

/**
 * The log of a CLI command: command output goes to stdout; logs stay at warnings unless a
 * variable asks for a level (the config file's level is the daemon's; loadConfig validated it).
 */
export function commandLogger(io: Io, config: Config): Logger {
  return createLogger(io.env.SVC_LOG_LEVEL || io.env.SVC_LOGGING_LEVEL ? config.logging.level : 'warn', io.stderr, { colour: io.colour });
}

/** The `-w, --workspace` option every workspace command takes (`workspace()` of the action resolves it). */
export const WORKSPACE_OPTION = ['-w, --workspace <id|name>', 'workspace (optional when there is only one)'] as const;

export interface ActOptions {
  /**
   * false: open the database as it is, migrating nothing, for a command that reports on it (`svc doctor`, which
   * must work mid-upgrade, when migrating would be refused). Its action reads migrationStatus and must not use what
   * the schema it finds lacks. Such a command never creates a database.
   */
  migrate?: boolean;
}

/**
 * Wrap a commander action: load config, open the app (migrating to latest, unless `options.migrate` is false), run,
 * always close. A command declared with mayCreateDatabase creates and migrates a database that is not there yet; any
 * other refuses one (no SQLite file, or a PostgreSQL database without svc's tables) and creates nothing. Errors
 * propagate to main.ts, which owns exit codes.
 */
export function act<O = Record<string, unknown>>(io: Io, fn: (c: ActionContext<O>) => Promise<void>, options: ActOptions = {}) {
  return async (...params: unknown[]) => {
    const command = params[params.length - 1] as Command;
    const opts = command.optsWithGlobals() as O & GlobalOptions & { workspace?: string };
    const args = params.slice(0, -2).flat().filter((a): a is string => typeof a === 'string');
    const config = configFor(io, opts);
    const out = output(io, Boolean(opts.json));
    const guard = newDatabaseGuard(config, opts.newDatabase);
    // First the refusal that names the database a daemon serves (more help than "not there").
    refuseNewSqliteFile(config, guard);
    const creates = declaredMayCreateDatabase(command);
    if (!creates) refuseMissingDatabase(config);
    warnIfDaemonElsewhere(config, out);
    // On PostgreSQL a new database is one without svc's tables: only createApp can tell. Again the
    // refusal naming the database a daemon serves comes first.
    const beforeNewDatabase = creates
      ? guard
      : () => {
          guard?.();
          refuseEmptyDatabase(config);
        };
    const migrate = options.migrate !== false;
    if (!migrate && creates) throw new Error('a command that migrates nothing creates no database');
    const app = await createApp({ config, log: commandLogger(io, config), beforeNewDatabase, migrate }).catch(namingDatabase(config));
    try {
      // Without migrating, createApp never asked whether the database is new: the same refusals, here.
      if (!migrate && (await isNewDatabase(app.db))) beforeNewDatabase?.();
      await fn({ app, opts, args, out, io, workspace: () => resolveWorkspace(app, opts.workspace) });
    } catch (err) {
      namingDatabase(config)(err);
    } finally {
      await app.close();
    }
  };
}

/** `articles list` for the command of an action (its group and name, without aliases). */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Refuse a SQLite database that is not there yet, naming the file and why this command looks there. */
export function refuseMissingDatabase(config: Config, nothingTo?: string): void {
  if (config.database.client === 'sqlite3' && !existsSync(config.database.filename)) throw noSvcDatabase(config.database.filename, sqliteChosenBy(config), nothingTo);
}

/** Refuse a database without svc's tables (a PostgreSQL database nothing migrated), naming it without its password. */
export function refuseEmptyDatabase(config: Config, nothingTo?: string): never {
  const where = config.database.client === 'pg' ? databaseIdentity(config.database) : config.database.filename;
  throw noSvcDatabase(where, 'no svc tables', nothingTo);
}

/**
 * A database that cannot serve, named for the operator (db/errors.ts cannotReach), and a data
 * directory that cannot be created, with the settings that chose them where they came from;
 * anything else rethrown as it is.
 */
export function namingDatabase(config: Config): (err: unknown) => never {
  return (err) => {
    if (err instanceof AppError && err.code === 'database_unavailable' && typeof err.details?.dataDir === 'string') {
      throw new AppError(err.code, err.status, err.message, {
        cause: err.cause,
        expose: err.expose,
        details: err.details,
        hint: `${err.hint} The data directory is set by ${settingSource(config, 'dataDir')}${config.sources['database.filename'] ? ` and the file by ${settingSource(config, 'database.filename')}` : ''}.`,
      });
    }
    throw cannotReach(databaseIdentity(config.database), err, databaseSettingsHint(config)) ?? err;
  };
}

/**
 * Split brain guard: the daemon of this data directory serves another database than
 * the one this command is about to use (e.g. it runs on PostgreSQL, the command has no
 * database.url and would write into the old SQLite file).
 */
function warnIfDaemonElsewhere(config: Config, out: Output): void {
  const daemons = daemonsElsewhere(config);
  if (daemons.length === 0) return;
  const mine = config.database.client === 'pg' ? `another PostgreSQL database (${settingSource(config, 'database.url')})` : `${config.database.filename} (${sqliteChosenBy(config)})`;
  for (const daemon of daemons) {
    out.note(`warning: the svc daemon of this data directory (pid ${daemon.pid}) serves ${servedName(daemon)}, but this command uses ${mine}: what it changes, that daemon does not serve.`);
  }
  out.note(`hint: ${readTheDaemonsConfig(daemons[0])}`);
}

/** Where svc looks for its config file, for hints. */
export const CONFIG_SEARCH = '--config, SVC_CONFIG, /etc/svc/config.yaml, ./config.yaml';

const servedName = (daemon: DaemonRecord) => daemon.database.replace(/^sqlite:/, '');

const readTheDaemonsConfig = (daemon: DaemonRecord) =>
  daemon.configFile
    ? `Run svc with the daemon's config file: --config ${daemon.configFile} (or SVC_CONFIG=${daemon.configFile}).`
    : `The daemon read no config file: give svc its database in a config file both read (${CONFIG_SEARCH}), or the same SVC_* variables.`;

/**
 * A guard for a command about to create a new database (a SQLite file that does not exist yet,
 * or migrations on an empty database) while a running daemon of this machine serves another:
 * going on would make a second, empty database that no daemon serves (a command run from a
 * directory whose config.yaml is not the daemon's, or without its database.url). Refused, naming
 * the database served and the config file the daemon read; `--new-database` goes ahead.
 */
export function newDatabaseGuard(config: Config, allowed: boolean | undefined): (() => void) | undefined {
  const [daemon] = allowed ? [] : liveDaemons(config, 'other');
  if (!daemon) return undefined;
  return () => {
    const mine =
      config.database.client === 'pg'
        ? `migrate the empty PostgreSQL database ${databaseIdentity(config.database)} (${settingSource(config, 'database.url')})`
        : `create a new SQLite database ${config.database.filename} (${sqliteChosenBy(config)})`;
    throw new AppError('database_elsewhere', 409, `A running svc daemon (pid ${daemon.pid}) serves ${servedName(daemon)}, but this command would ${mine}.`, {
      hint: `${readTheDaemonsConfig(daemon)} To create this new database anyway, add --new-database.`,
      details: { served: servedName(daemon), daemonConfigFile: daemon.configFile ?? null },
    });
  };
}

/** The guard, before a command opens its database: a SQLite file that is not there yet would be created. */
export function refuseNewSqliteFile(config: Config, guard: (() => void) | undefined): void {
  if (guard && config.database.client === 'sqlite3' && !existsSync(config.database.filename)) guard();
}

/**
 * The public address to print (blog keys, API keys): the one the running daemon of this
 * database serves, which may come from settings this command does not have (SVC_BASE_URL in the
 * daemon's unit), with a warning when this command's own differs; else this command's.
 */
export function servedBaseUrl(config: Config, out: Output): string {
  const served = daemonsServing(config).find((d) => d.served)?.served;
  if (!served) return config.server.baseUrl;
  if (served.baseUrl !== config.server.baseUrl) {
    out.note(
      `warning: the running daemon serves ${served.baseUrl}, but this command's server.baseUrl is ${config.server.baseUrl} (${settingSource(config, 'server.baseUrl')}); printing the daemon's. Put server.baseUrl in the config file both read (${CONFIG_SEARCH}).`,
    );
  }
  return served.baseUrl;
}

/** The running daemons of this machine serving the database `config` names (pid, address and webhook target settings of each). */
export const daemonsServing = (config: Config) => liveDaemons(config, 'same');

/** A flag value that must be one of a few words; anything else is a usage mistake (exit 2) naming them. */
export function choiceOption<T extends string>(value: string, flag: string, choices: readonly T[]): T {
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw usageError(`${flag} takes ${choices.slice(0, -1).join(', ')} or ${choices[choices.length - 1]}, not "${value}"`);
}

/** A whole-number flag value in [min, max]; anything else is a usage mistake (exit 2), not NaN passed on. */
export function intOption(value: string, flag: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = /^\s*-?\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw usageError(`${flag} takes a whole number${max === Number.MAX_SAFE_INTEGER ? ` of at least ${min}` : ` from ${min} to ${max}`}, not "${value}"`);
  }
  return n;
}

/** The app with the public address the running daemon serves: what URLs stored for it (images) must start with. */
export function servedCtx(app: App, out: Output): Ctx {
  const baseUrl = servedBaseUrl(app.config, out);
  if (baseUrl === app.config.server.baseUrl) return app;
  const { config, db, clock, log, events, metrics, renderer } = app;
  return { config: { ...config, server: { ...config.server, baseUrl } }, db, clock, log, events, metrics, renderer };
}
