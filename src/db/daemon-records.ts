import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/schema.js';
import { processAlive } from '../lib/process-alive.js';
import { ensurePrivateDir } from './files.js';
import { databaseIdentity } from './errors.js';

/**
 * What each running daemon serves, where the CLI finds it from any directory: `svc serve` writes
 * `daemon-<pid>.json` into the first writable state directory (config.stateDirs) while it runs,
 * one per daemon as several may run on one machine. A record whose process is gone is ignored,
 * and removed by the next daemon that starts.
 */
const daemonRecordFile = (stateDir: string, pid = process.pid) => path.join(stateDir, `daemon-${pid}.json`);

// Also read in the data directory, where daemons of svc 0.2.0 keep theirs (a rolling upgrade).
const RECORD_NAME = /^daemon(?:-\d+)?\.json$/;

export interface DaemonRecord {
  pid: number;
  /** sqlite:<file> or the PostgreSQL URL without its password. */
  database: string;
  since: string;
  /** The daemon's data directory (absent in the records of svc 0.2.0, which lay in it). */
  dataDir?: string;
  /** The daemon's webhook target settings, read once at its start (`svc webhook set` says when they refuse a receiver). */
  webhooks: { allowPrivateNetworks: boolean; allowedHosts: string[] };
  /** Where it listens and the public address it serves, once bound (the CLI prints that address). */
  served?: { host: string; port: number; baseUrl: string };
  /** The config file it read, or null. */
  configFile?: string | null;
}

type RecordedConfig = Pick<Config, 'dataDir' | 'database' | 'stateDirs'>;


/**
 * Write this daemon's record into the first state directory it can write (clearing the records
 * of daemons that are gone); the returned function removes it. Written again with `served` once
 * the port is bound.
 */
export function recordDaemon(config: RecordedConfig & Pick<Config, 'webhooks' | 'source'>, now: Date, served?: DaemonRecord['served']): () => void {
  const { allowPrivateNetworks, allowedHosts } = config.webhooks;
  const record: DaemonRecord = {
    pid: process.pid,
    database: databaseIdentity(config.database),
    since: now.toISOString(),
    dataDir: path.resolve(config.dataDir),
    webhooks: { allowPrivateNetworks, allowedHosts },
    ...(served ? { served } : {}),
    configFile: config.source,
  };
  for (const dir of config.stateDirs) {
    const file = daemonRecordFile(dir);
    try {
      ensurePrivateDir(dir);
      for (const { file: stale } of daemonRecords(dir).filter((r) => !processAlive(r.record.pid))) rmSync(stale, { force: true });
      writeFileSync(file, JSON.stringify(record, null, 2) + '\n', { mode: 0o600 });
    } catch {
      continue; // not ours to write (the machine's directory, for a user): the next one
    }
    return () => rmSync(file, { force: true });
  }
  return () => {}; // nowhere writable: no record, no warning; serving matters more
}

/** The live daemons of this data directory that serve another database than `config`'s (a command here would write unseen). */
export function daemonsElsewhere(config: RecordedConfig): DaemonRecord[] {
  const dataDir = path.resolve(config.dataDir);
  return liveDaemons(config, 'other').filter((r) => (r.dataDir ?? dataDir) === dataDir);
}

/**
 * The records of the running daemons of this machine found in the state directories (and, from
 * older versions, the data directory), oldest pid first: all of them, or those that serve the same
 * database as `config` or another one, wherever their data directory.
 */
export function liveDaemons(config: RecordedConfig, serving?: 'same' | 'other'): DaemonRecord[] {
  const mine = databaseIdentity(config.database);
  const byPid = new Map<number, DaemonRecord>();
  for (const dir of [...config.stateDirs, config.dataDir]) {
    for (const { record } of daemonRecords(dir)) if (!byPid.has(record.pid) && processAlive(record.pid)) byPid.set(record.pid, record);
  }
  const wanted = (r: DaemonRecord) => serving === undefined || (r.database === mine) === (serving === 'same');
  return [...byPid.values()].filter(wanted).sort((a, b) => a.pid - b.pid);
}

function daemonRecords(dir: string): Array<{ file: string; record: DaemonRecord }> {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => RECORD_NAME.test(n));
  } catch {
    return [];
  }
  return names.flatMap((n) => {
    const file = path.join(dir, n);
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
