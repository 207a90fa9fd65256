import { hostname } from 'node:os';
import pg from 'pg';
import { endClient } from '../../src/db/connect.js';
import { adminQuery } from './pg-admin.js';

// The PostgreSQL databases a test run makes are named after the run (`svc_t_r_<run>_...`), and the
// run holds a session-level advisory lock named after it on the same server for as long as it
// lives. A run killed midway (SIGKILL, a closed terminal, CI's time limit) never reaches its
// teardown, but its session ends with its process and the server releases the lock: databases of
// a run whose lock nobody holds are provably abandoned, and the next run's sweep drops them. A
// lock, unlike a process id, says the same on every host and in every PID namespace that shares
// the server, and is never reused by an unrelated process.

/** The advisory lock's first key ('SvcT'): the second is the run's number. */
const RUN_LOCK_CLASS = 0x53766354;

/** Databases named as runs named them before they took a lock: dropped only when older than this. */
export const UNCLAIMED_MAX_AGE_MS = 24 * 60 * 60 * 1000;

const CLAIMED = /^svc_t_r_([0-9a-z]{1,6})_/;
const UNCLAIMED = /^svc_t_(?:template_)?([0-9a-z]{8,9})(?:_[0-9a-z]+)?$/;

export interface TestRun {
  /** The run's number in base 36: its databases are `svc_t_r_<id>_...`. */
  id: string;
  /** A database name of this run's: `svc_t_r_<id>_<what>`. */
  name(what: string): string;
  /** Ends the session that holds the lock: whatever of the run's is left is then the next sweep's. */
  release(): Promise<void>;
}

/**
 * Claims a run on the server of `adminUrl`: a random number whose advisory lock this process holds
 * on a session of its own until release() or its end. Take it before making any database.
 */
export async function claimRun(adminUrl: string): Promise<TestRun> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 10_000, application_name: `svc test run on ${hostname()}, pid ${process.pid}`.slice(0, 63) });
  // The server going away ends the run's tests anyway; the lock's session must not crash the run.
  client.on('error', () => {});
  await client.connect();
  try {
    for (;;) {
      const n = 1 + Math.floor(Math.random() * 0x7ffffffe);
      const { rows } = await client.query<{ ok: boolean }>('select pg_try_advisory_lock($1::int, $2::int) as ok', [RUN_LOCK_CLASS, n]);
      if (!rows[0].ok) continue; // another live run has this number
      return { ...heldElsewhere(n.toString(36)), release: () => endClient(client) };
    }
  } catch (err) {
    await endClient(client);
    throw err;
  }
}

/** A run whose lock another process holds (the test forks name their databases after the globalSetup's run). */
export function heldElsewhere(id: string): TestRun {
  return { id, name: (what) => `svc_t_r_${id}_${what}`, release: async () => {} };
}

/** Why sweepAbandoned drops a database, or keeps it. */
export type Verdict = 'abandoned' | 'old' | 'live' | 'recent' | 'not ours';

/** What the sweep makes of a database name, given the runs whose lock is held and the time now. */
export function verdict(name: string, held: Set<string>, now: number): Verdict {
  const claimed = CLAIMED.exec(name);
  if (claimed) return held.has(claimed[1]) ? 'live' : 'abandoned';
  const unclaimed = UNCLAIMED.exec(name);
  if (!unclaimed) return 'not ours';
  const made = parseInt(unclaimed[1], 36);
  return now - made > UNCLAIMED_MAX_AGE_MS ? 'old' : 'recent';
}

/**
 * Drops the test databases on the server of `adminUrl` that no live run uses: a run's whose lock
 * nobody holds, and (named before runs took locks) ones made more than UNCLAIMED_MAX_AGE_MS ago.
 * Returns the names dropped. The names are read before the locks: a database seen is one whose run
 * had its lock before making it, so a lock missing afterwards means the run has ended.
 */
export async function sweepAbandoned(adminUrl: string, now = Date.now()): Promise<string[]> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 10_000, query_timeout: 60_000 });
  let names: string[];
  let held: Set<string>;
  await client.connect();
  try {
    names = (await client.query<{ datname: string }>(`select datname from pg_database where datname like 'svc\\_t\\_%'`)).rows.map((r) => r.datname);
    const locks = await client.query<{ n: string }>(`select objid::text as n from pg_locks where locktype = 'advisory' and classid = $1::int::oid and objsubid = 2 and granted`, [RUN_LOCK_CLASS]);
    held = new Set(locks.rows.map((r) => Number(r.n).toString(36)));
  } finally {
    await endClient(client);
  }
  const gone = names.filter((name) => ['abandoned', 'old'].includes(verdict(name, held, now)));
  await dropDatabases(gone.map((name) => ({ adminUrl, name })));
  return gone;
}

/** Drops the databases listed, 16 at a time (concurrent drops share a checkpoint: 550 took 75 s 6 at a time); every one is tried, the first failure thrown. */
export async function dropDatabases(list: Array<{ adminUrl: string; name: string }>, concurrency = 16): Promise<void> {
  const queue = [...list];
  let failure: unknown;
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      await adminQuery(next.adminUrl, `DROP DATABASE IF EXISTS ${next.name} WITH (FORCE)`).catch((err) => (failure ??= err));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  if (failure !== undefined) throw failure;
}
