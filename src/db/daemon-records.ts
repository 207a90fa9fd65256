import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/schema.js';
import { processAlive } from '../lib/process-alive.js';
import { ensurePrivateDir } from './files.js';
import { databaseIdentity } from './errors.js';

/**
 * `svc serve` writes `daemon-<pid>.json` into the first writable state directory while it runs; one
 * whose process is gone is ignored, and removed by the next daemon. Also read in the data
 * directory, where daemons of svc 0.2.0 keep theirs.
 */
const RECORD_NAME = /^daemon(?:-\d+)?\.json$/;

export interface DaemonRecord {
  pid: number;
  /** sqlite:<file> or the PostgreSQL URL without its password. */
  database: string;
  since: string;
  /** Absent from svc 0.2.0's records, which lay in the data directory. */
  dataDir?: string;
  /** Read once at its start (`svc webhook set` says when they refuse a receiver). */
  webhooks: { allowPrivateNetworks: boolean; allowedHosts: string[] };
  /** Once bound. */
  served?: { host: string; port: number; baseUrl: string };
  configFile?: string | null;
}

type RecordedConfig = Pick<Config, 'dataDir' | 'database' | 'stateDirs'>;

/** Write this daemon's record (clearing those of daemons gone); the returned function removes it. */
export function recordDaemon(config: RecordedConfig & Pick<Config, 'webhooks' | 'source'>, now: Date, served?: DaemonRecord['served']): () => void {
  const { allowPrivateNetworks, allowedHosts } = config.webhooks;
  const record: DaemonRecord = {
    pid: process.pid,
    database: databaseIdentity(config.database),
    since: now.toISOString(),
    dataDir: path.resolve(config.dataDir),
    webhooks: { allowPrivateNetworks, allowedHosts },
    served,
    configFile: config.source,
  };
  for (const dir of config.stateDirs) {
    const file = path.join(dir, `daemon-${process.pid}.json`);
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

/** The running daemons' records, oldest pid first: all, or those serving the same database as `config` or another one. */
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
    try {
      const record = JSON.parse(readFileSync(file, 'utf8')) as DaemonRecord;
      return typeof record.pid === 'number' && typeof record.database === 'string' ? [{ file, record }] : [];
    } catch {
      return [];
    }
  });
}
