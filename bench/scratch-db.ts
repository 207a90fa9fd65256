import pg from 'pg';
import { endClient } from '../src/db/connect.js';

/** A database of its own for one bench module, on a PostgreSQL server; drop() removes it. */
export interface ScratchDatabase {
  url: string;
  /** Drops it; a failure is logged, not thrown (the bench's figures still count). */
  drop(): Promise<void>;
}

/**
 * Creates an empty database named `<prefix>_<time>` on the server `serverUrl` names. Throws when
 * the server cannot be reached (within 10 s: a silent server fails the bench instead of holding it).
 */
export async function scratchDatabase(serverUrl: string, prefix: string, log: (s: string) => void): Promise<ScratchDatabase> {
  await dropLeftovers(serverUrl, prefix, log);
  const name = `${prefix}_${Date.now().toString(36)}`;
  await adminQuery(serverUrl, `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch((err) => log(`could not drop ${name}: ${err}`)),
  };
}

/**
 * One statement on its own connection to `connectionString`: CREATE and DROP DATABASE cannot run
 * in a pool's transaction. Bounded, so a silent server fails the caller instead of holding it (the
 * tests' globalSetup, which has no vitest timeout, uses it too).
 */
export async function adminQuery(connectionString: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString, connectionTimeoutMillis: 10_000, query_timeout: 60_000 });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await endClient(c);
  }
}

/** A bench killed before its drop() leaves its database: those of `prefix` over a day old go (no bench runs that long; one running elsewhere is younger). */
async function dropLeftovers(serverUrl: string, prefix: string, log: (s: string) => void): Promise<void> {
  const c = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 10_000, query_timeout: 60_000 });
  await c.connect();
  let names: string[];
  try {
    names = (await c.query<{ datname: string }>('select datname from pg_database where datname like $1', [`${prefix}\\_%`])).rows.map((r) => r.datname);
  } finally {
    await endClient(c);
  }
  for (const name of names) {
    const made = Number.parseInt(name.slice(prefix.length + 1), 36);
    if (!/^[a-z0-9]+$/.test(name.slice(prefix.length + 1)) || !(Date.now() - made > 86_400_000)) continue;
    log(`dropping ${name}, left by a bench that did not finish`);
    await adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch((err) => log(`could not drop ${name}: ${err}`));
  }
}
