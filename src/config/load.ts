import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { AppError } from '../errors.js';
import { humanErrors } from '../lib/validate.js';
import { type Config, configSchema } from './schema.js';

/**
 * Precedence, highest first: command-line flags -> SVC_* environment -> config file -> defaults.
 * The file is found by findConfigFile (the CLI and the daemon share it, so both read one file).
 * Every leaf key has a variable named after its path (webhooks.allowPrivateNetworks ->
 * SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORKS); ALIASES adds the short names operators type most.
 */
export const ALIASES: Record<string, string> = {
  SVC_HOST: 'server.host',
  SVC_PORT: 'server.port',
  SVC_BASE_URL: 'server.baseUrl',
  SVC_LOG_LEVEL: 'logging.level',
};

/** The system-wide config file, read when neither --config nor SVC_CONFIG names one. */
export const SYSTEM_CONFIG = '/etc/svc/config.yaml';
/** The data directory of an installation configured by SYSTEM_CONFIG that names none. */
export const SYSTEM_DATA_DIR = '/var/lib/svc';

/** Where daemons record what they serve when no setting names a state directory: systemd's RuntimeDirectory=svc. */
export const SYSTEM_STATE_DIR = '/run/svc';

export interface LoadOptions {
  env: Record<string, string | undefined>;
  cwd: string;
  /** --config flag */
  configPath?: string;
  /** Where the system-wide file is looked for (tests point it into a temp dir). */
  systemConfig?: string;
  /** The machine-wide state directory (tests point it into a temp dir). */
  systemStateDir?: string;
  /** Flag overrides by key path, e.g. { 'server.port': 0 }. */
  overrides?: Record<string, unknown>;
}

type LeafKind = 'string' | 'number' | 'boolean' | 'array';

/** Every leaf key path of the schema with the kind of value its env variable carries. */
export function configLeaves(): Array<{ path: string; env: string; kind: LeafKind }> {
  const out: Array<{ path: string; env: string; kind: LeafKind }> = [];
  const walk = (schema: z.ZodTypeAny, prefix: string[]) => {
    const inner = unwrap(schema);
    if (inner instanceof z.ZodObject) {
      for (const [key, child] of Object.entries(inner.shape as Record<string, z.ZodTypeAny>)) walk(child, [...prefix, key]);
      return;
    }
    const kind: LeafKind =
      inner instanceof z.ZodArray ? 'array' : inner instanceof z.ZodNumber ? 'number' : inner instanceof z.ZodBoolean ? 'boolean' : 'string';
    out.push({ path: prefix.join('.'), env: envName(prefix), kind });
  };
  walk(configSchema, []);
  return out;
}

function unwrap(schema: z.ZodTypeAny): z.ZodTypeAny {
  let s = schema;
  for (;;) {
    if (s instanceof z.ZodDefault || s instanceof z.ZodOptional || s instanceof z.ZodNullable) s = s._def.innerType;
    else if (s instanceof z.ZodEffects) s = s._def.schema;
    else return s;
  }
}

const envName = (parts: string[]) =>
  'SVC_' + parts.map((p) => p.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()).join('_');

/**
 * Which config file svc reads, the same for every command and the daemon: `--config PATH`, else
 * $SVC_CONFIG, else /etc/svc/config.yaml when it exists, else ./config.yaml when it exists, else
 * none. `none` (flag or variable) reads no file: defaults and SVC_* only.
 */
export function findConfigFile(options: Pick<LoadOptions, 'env' | 'cwd' | 'configPath' | 'systemConfig'>): string | null {
  const { env, cwd } = options;
  const explicit = options.configPath ?? (env.SVC_CONFIG || undefined);
  if (explicit === 'none') return null;
  if (explicit) {
    const file = path.resolve(cwd, explicit);
    if (!existsSync(file)) {
      const named = options.configPath !== undefined ? '--config' : 'SVC_CONFIG';
      throw new AppError('config_invalid', 400, `Config file not found: ${file} (named by ${named})`, {
        hint: `Check ${named}, or copy config.example.yaml there.`,
      });
    }
    return file;
  }
  const system = options.systemConfig ?? SYSTEM_CONFIG;
  if (existsSync(system)) return system;
  const local = path.join(cwd, 'config.yaml');
  return existsSync(local) ? local : null;
}

export function loadConfig(options: LoadOptions): Config {
  const { env, cwd } = options;
  const problems: string[] = [];
  const file = findConfigFile(options);
  let raw: Record<string, unknown> = {};
  if (file) raw = readYaml(file);

  const sources = new Map<string, string>();
  for (const leaf of configLeaves()) {
    if (getPath(raw, leaf.path) !== undefined) sources.set(leaf.path, `${file}: ${leaf.path}`);
  }
  const byPath = new Map(configLeaves().map((l) => [l.path, l]));
  const envEntries: Array<[string, string]> = [];
  for (const leaf of byPath.values()) envEntries.push([leaf.env, leaf.path]);
  for (const [alias, p] of Object.entries(ALIASES)) envEntries.push([alias, p]);
  for (const [name, p] of envEntries) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    const parsed = parseEnvValue(value, byPath.get(p)!.kind);
    if (parsed === undefined) {
      problems.push(`${name}: "${value}" is not a valid ${byPath.get(p)!.kind} (for ${p})`);
      continue;
    }
    setPath(raw, p, parsed);
    sources.set(p, name);
  }
  const dbUrl = getPath(raw, 'database.url');
  if (typeof dbUrl === 'string' && /^postgres(ql)?:\/\//.test(dbUrl) && getPath(raw, 'database.client') === undefined) {
    setPath(raw, 'database.client', 'pg');
  }
  // Anything else there (a SQLite path, a sqlite: URL) would be ignored while svc used another file.
  if (typeof dbUrl === 'string' && dbUrl !== '' && !/^postgres(ql)?:\/\//.test(dbUrl)) {
    problems.push(`${sources.get('database.url') ?? (file ? `${file}: database.url` : 'database.url')}: "${dbUrl}" is not a PostgreSQL URL (postgres://user@host:5432/db); for a SQLite file set database.filename (SVC_DATABASE_FILENAME)`);
  }
  for (const [p, value] of Object.entries(options.overrides ?? {})) {
    if (value === undefined) continue;
    setPath(raw, p, value);
    sources.set(p, `--${p.split('.').pop()}`);
  }

  const result = configSchema.safeParse(raw, { errorMap: humanErrors });
  if (!result.success) {
    for (const issue of result.error.issues) {
      const key = issue.path.join('.');
      const where = sources.get(key) ?? (file ? `${file}: ${key || '(top level)'}` : key);
      const message =
        issue.code === 'unrecognized_keys' ? `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}` : issue.message;
      problems.push(`${where}: ${message}`);
    }
  }
  if (problems.length > 0) {
    throw new AppError('config_invalid', 400, `Invalid configuration:\n  - ${problems.join('\n  - ')}`, {
      hint: 'See config.example.yaml for every key, its default and its SVC_* variable.',
    });
  }
  const cfg = result.data!;
  // A data directory is found the way the config file is, whatever the working directory: a
  // relative one in a file is relative to that file; the system file's default is /var/lib/svc.
  const dataDirFromFile = sources.get('dataDir')?.startsWith(`${file}:`);
  const dataDir = dataDirFromFile
    ? path.resolve(path.dirname(file!), cfg.dataDir)
    : sources.has('dataDir') || !file
      ? path.resolve(cwd, cfg.dataDir)
      : file === (options.systemConfig ?? SYSTEM_CONFIG)
        ? SYSTEM_DATA_DIR
        : path.resolve(path.dirname(file), cfg.dataDir);
  const stateDir = cfg.stateDir === undefined ? undefined : sources.get('stateDir')?.startsWith(`${file}:`) ? path.resolve(path.dirname(file!), cfg.stateDir) : path.resolve(cwd, cfg.stateDir);
  if (cfg.database.client === 'pg' && !cfg.database.url) {
    throw new AppError('config_invalid', 400, 'Invalid configuration:\n  - database.url: required when database.client is pg', {
      hint: 'Set SVC_DATABASE_URL=postgres://user@host:5432/db',
    });
  }
  const host = cfg.server.host;
  const publicHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  const config: Config = {
    ...cfg,
    dataDir,
    server: { ...cfg.server, baseUrl: (cfg.server.baseUrl ?? `http://${publicHost}:${cfg.server.port}`).replace(/\/+$/, '') },
    database: { ...cfg.database, filename: path.resolve(dataDir, cfg.database.filename ?? 'svc.sqlite') },
    source: file,
    sources: Object.fromEntries(sources),
    stateDirs: stateDirs(stateDir, env, options.systemStateDir ?? SYSTEM_STATE_DIR),
    unknownEnv: unknownVariables(env, new Set(envEntries.map(([name]) => name))),
  };
  return deepFreeze(config);
}

/**
 * Where daemon records live, the first writable one being where a daemon writes: the state
 * directory a setting names (only that one), else the machine's (/run/svc, where a root daemon
 * or one under systemd's RuntimeDirectory=svc writes) and then this user's
 * ($XDG_STATE_HOME/svc, ~/.local/state/svc): a CLI run by root or by the daemon's user finds it.
 */
function stateDirs(named: string | undefined, env: Record<string, string | undefined>, system: string): string[] {
  if (named) return [named];
  const home = env.HOME || os.homedir();
  const user = env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME) ? path.join(env.XDG_STATE_HOME, 'svc') : path.join(home, '.local', 'state', 'svc');
  return user === system ? [system] : [system, user];
}

// Read by the loader itself or by the test suite, not settings.
const NOT_SETTINGS = new Set(['SVC_CONFIG']);

function unknownVariables(env: Record<string, string | undefined>, known: Set<string>): string[] {
  return Object.keys(env)
    .filter((name) => name.startsWith('SVC_') && !known.has(name) && !NOT_SETTINGS.has(name) && !name.startsWith('SVC_TEST_'))
    .sort();
}

function readYaml(file: string): Record<string, unknown> {
  // Loaded only when there is a file to read: every command loads its settings, often from the environment alone.
  const YAML = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  let parsed: unknown;
  try {
    parsed = YAML.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new AppError('config_invalid', 400, `Cannot read ${file}: ${(err as Error).message}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new AppError('config_invalid', 400, `${file} must be a YAML mapping of keys to values`);
  }
  return parsed as Record<string, unknown>;
}

function parseEnvValue(value: string, kind: LeafKind): unknown {
  switch (kind) {
    case 'number': {
      const n = Number(value);
      return Number.isFinite(n) && value.trim() !== '' ? n : undefined;
    }
    case 'boolean': {
      const v = value.trim().toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(v)) return true;
      if (['0', 'false', 'no', 'off'].includes(v)) return false;
      return undefined;
    }
    case 'array':
      return value.split(',').map((s) => s.trim()).filter(Boolean);
    default:
      return value;
  }
}

function getPath(obj: Record<string, unknown>, p: string): unknown {
  let cur: unknown = obj;
  for (const part of p.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

function setPath(obj: Record<string, unknown>, p: string, value: unknown): void {
  const parts = p.split('.');
  let cur = obj;
  for (const part of parts.slice(0, -1)) {
    if (cur[part] === null || typeof cur[part] !== 'object') cur[part] = {};
    cur = cur[part] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1]] = value;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** Where a setting came from, for messages: `SVC_DATABASE_URL`, `database.url in /etc/svc/config.yaml`, `--port`, or `the default`. */
export function settingSource(config: Pick<Config, 'sources'>, key: string): string {
  const source = config.sources[key];
  if (!source) return `the default ${key}`;
  const inFile = /^(.*): ([\w.]+)$/.exec(source);
  return inFile ? `${inFile[2]} in ${inFile[1]}` : source;
}

/**
 * A setting to change, for hints: where it is set now (`database.backupTimeout in
 * /etc/svc/config.yaml`, `SVC_DATABASE_BACKUP_TIMEOUT`), or, at its default, the two places that set it.
 */
export function settingToChange(config: Pick<Config, 'sources'>, key: string): string {
  if (config.sources[key]) return settingSource(config, key);
  return `${key} (in the config file, or ${envName(key.split('.'))}; now the default)`;
}

/** How to fix a database svc cannot open, naming the settings that chose it where they came from. */
export function databaseSettingsHint(config: Pick<Config, 'sources' | 'database'>): string {
  return config.database.client === 'pg'
    ? `Check ${settingSource(config, 'database.url')} and that the server is running.`
    : `Check ${settingSource(config, 'dataDir')} and ${settingSource(config, 'database.filename')}, and the file permissions.`;
}

/** Why svc uses a SQLite file: the setting that named it, else that no database.url is set (and where it was looked for). */
export function sqliteChosenBy(config: Pick<Config, 'sources' | 'source'>): string {
  if (config.sources['database.filename']) return `${settingSource(config, 'database.filename')} names it`;
  if (config.sources.dataDir) return `database.url is not set and ${settingSource(config, 'dataDir')} names its directory`;
  return `database.url is not set (${config.source ? `not in ${config.source}` : 'no config file was found'}, nor SVC_DATABASE_URL)`;
}
