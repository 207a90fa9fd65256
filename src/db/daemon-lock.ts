import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/schema.js';
import { AppError } from '../errors.js';
import { processAlive } from '../lib/process-alive.js';
import { ensurePrivateDir } from './files.js';
import { refuseMovedDatabase, withoutPassword } from './moved.js';
import { type HeldLock, sqliteLock } from './sqlite-lock.js';

/** The sidecar file a daemon holds locked for as long as it serves a SQLite database. */
export const sqliteDaemonLockFile = (filename: string) => `${filename}-daemon.lock`;

/**
 * Claim the database for one daemon where only one may serve it. SQLite is the single-daemon default: a second
 * `svc serve` on the same file is refused, while CLI commands (which never claim) keep working
 * beside the daemon. The lock dies with the process (sqlite-lock.ts), so a crashed daemon never
 * blocks the next start. PostgreSQL takes any number of daemons: nothing to claim.
 */
export async function claimDatabase(database: Config['database']): Promise<HeldLock> {
  if (database.client === 'pg') return { release: async () => {} };
  refuseMovedDatabase(database);
  ensurePrivateDir(path.dirname(database.filename));
  const file = sqliteDaemonLockFile(database.filename);
  const lock = await sqliteLock(file).catch((err: Error) => {
    throw new AppError('database_unavailable', 503, `Cannot open ${file}: ${err.message}`, {
      hint: 'Check SVC_DATA_DIR / database.filename and the file permissions.',
      cause: err,
    });
  });
  if (lock) return lock;
  throw new AppError('database_in_use', 409, `Another svc daemon is already serving the SQLite database ${database.filename}`, {
    hint: 'One daemon per SQLite file: stop the other one first (CLI commands may run beside it). To run several daemons, use PostgreSQL (SVC_DATABASE_URL); see "Several daemons" in the README.',
  });
}

/**
 * Which database the daemons serving from this data directory use (a command on another one would write unseen): `svc serve` writes
 * `<dataDir>/daemon-<pid>.json` when it starts and removes it when it stops, and a CLI command
 * reading a different database warns. One file per daemon, because daemons on PostgreSQL may
 * share a data directory: with one file between them, the last to start overwrote the others'
 * record and its stop left none. Cheap (small files) and honest about crashes: a record whose
 * process is gone is ignored, and removed by the next daemon that starts.
 */
export const daemonRecordFile = (dataDir: string, pid = process.pid) => path.join(dataDir, `daemon-${pid}.json`);

// `daemon.json`: the one record of svc before per-daemon files, still read so a daemon of that
// version (a rolling upgrade) is seen.
const RECORD_NAME = /^daemon(?:-\d+)?\.json$/;

export interface DaemonRecord {
  pid: number;
  /** sqlite:<file> or the PostgreSQL URL without its password. */
  database: string;
  since: string;
  /** The daemon's webhook target settings, read once at its start (`svc webhook set` says when they refuse a receiver). */
  webhooks: { allowPrivateNetworks: boolean; allowedHosts: string[] };
  /** Where it listens and the public address it serves, once bound (the CLI prints that address). */
  served?: { host: string; port: number; baseUrl: string };
  /** The config file it read, or null. */
  configFile?: string | null;
}

export const databaseIdentity = (database: Config['database']) =>
  database.client === 'pg' ? withoutPassword(database.url!) : `sqlite:${path.resolve(database.filename)}`;

/**
 * Write this daemon's record (clearing those of daemons that are gone); the returned function
 * removes it. Written again with `served` once the port is bound.
 */
export function recordDaemon(config: Pick<Config, 'dataDir' | 'database' | 'webhooks' | 'source'>, now: Date, served?: DaemonRecord['served']): () => void {
  const file = daemonRecordFile(config.dataDir);
  const { allowPrivateNetworks, allowedHosts } = config.webhooks;
  const record: DaemonRecord = {
    pid: process.pid,
    database: databaseIdentity(config.database),
    since: now.toISOString(),
    webhooks: { allowPrivateNetworks, allowedHosts },
    ...(served ? { served } : {}),
    configFile: config.source,
  };
  try {
    ensurePrivateDir(config.dataDir);
    for (const { file: stale } of daemonRecords(config.dataDir).filter((r) => !processAlive(r.record.pid))) rmSync(stale, { force: true });
    writeFileSync(file, JSON.stringify(record, null, 2) + '\n', { mode: 0o600 });
  } catch {
    return () => {}; // a read-only data directory: no record, no warning; serving matters more
  }
  return () => rmSync(file, { force: true });
}

/** The live daemons of this data directory that serve the same database as `config` (`here`), or another one. */
export function daemonsOn(config: Pick<Config, 'dataDir' | 'database'>, here: boolean): DaemonRecord[] {
  const mine = databaseIdentity(config.database);
  return liveDaemons(config.dataDir).filter((r) => (r.database === mine) === here);
}

/** The records of the daemons serving from this data directory whose process lives, oldest pid first. */
export function liveDaemons(dataDir: string): DaemonRecord[] {
  return daemonRecords(dataDir)
    .map((r) => r.record)
    .filter((r) => processAlive(r.pid))
    .sort((a, b) => a.pid - b.pid);
}

function daemonRecords(dataDir: string): Array<{ file: string; record: DaemonRecord }> {
  let names: string[];
  try {
    names = readdirSync(dataDir).filter((n) => RECORD_NAME.test(n));
  } catch {
    return [];
  }
  return names.flatMap((n) => {
    const file = path.join(dataDir, n);
    const record = readDaemonRecord(file);
    return record ? [{ file, record }] : [];
  });
}

function readDaemonRecord(file: string): DaemonRecord | null {
  try {
    const r = JSON.parse(readFileSync(file, 'utf8')) as DaemonRecord;
    return typeof r.pid === 'number' && typeof r.database === 'string' ? r : null;
  } catch {
    return null;
  }
}
