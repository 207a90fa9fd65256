import pg from 'pg';
import type { Db } from './connect.js';
import { cutClient, dropOnQueryTimeout, endClient } from './connect.js';
import { preparedRows } from './prepared.js';

/** After a connect that failed, reads go through the pool for this long before the next attempt. */
const RETRY_MS = 5_000;
/** Severities of an error after which PostgreSQL closes the session. */
const SESSION_ENDED = new Set(['FATAL', 'PANIC']);
/** What the connection is called in pg_stat_activity. */
export const HELD_READS_NAME = 'svc content freshness';

/**
 * PostgreSQL only: a connection of its own for the content API's freshness reads, the statement
 * every cached request waits for. Taking a pooled connection for each read and giving it back cost
 * about a third of the read; held, a cached GET costs 5-6 % less CPU and is served 3-7 % faster
 * (docs/performance.md). It is a shortcut, never a wait of its own: a read uses it when
 * it is connected and idle, and otherwise goes through the pool as before (a read in flight on it,
 * a connect under way, a connect that failed less than RETRY_MS ago, closed). A read on it has the
 * pool's deadlines (the same settings: query_timeout, statement_timeout, keepalive; a timed-out
 * query ends the connection, dropOnQueryTimeout) besides the caller's own. A connection that fails
 * is dropped, and another connected in the background on the next read. One that goes silent holds
 * only the read in flight on it: FreshBatch's patience (content/coalesce.ts) lets the next burst
 * read through the pool (one silent connection must never hang every request).
 */
export class HeldReads {
  private client: pg.Client | null = null;
  private busy = false;
  /** A connection being made, cut if the reader closes meanwhile. */
  private connecting: pg.Client | null = null;
  private retryAt = 0;
  private closed = false;

  constructor(private readonly db: Db) {}

  /** The rows of the named prepared statement (as arrays), on the held connection when it is free, else on a pooled one. */
  async rows(name: string, text: string, values: unknown[]): Promise<unknown[][]> {
    const client = this.free();
    if (!client) return preparedRows(this.db, name, text, values);
    this.busy = true;
    try {
      return (await client.query<unknown[]>({ name, text, values, rowMode: 'array' })).rows;
    } catch (err) {
      // PostgreSQL answered with an error about the statement: the connection is fine, and the pool
      // would get the same answer. A FATAL one ends the session (a backend terminated, a restart).
      if (err instanceof pg.DatabaseError && !SESSION_ENDED.has(err.severity ?? '')) throw err;
      // The connection failed, timed out or was ended: drop it, and read on a pooled one (the
      // caller's deadline still counts from its own start).
      this.drop(client);
      return preparedRows(this.db, name, text, values);
    } finally {
      if (this.client === client) this.busy = false;
    }
  }

  /** Ends the held connection; reads after this go through the pool. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.connecting) cutClient(this.connecting);
    const client = this.client;
    this.client = null;
    if (client) await endClient(client);
  }

  /** The held connection when connected and idle; else null, connecting one in the background when none is. */
  private free(): pg.Client | null {
    if (this.client) return this.busy ? null : this.client;
    if (!this.closed && !this.connecting && Date.now() >= this.retryAt) void this.connect();
    return null;
  }

  private async connect(): Promise<void> {
    // The pool's own settings (db/connect.ts): the same deadlines and keepalive.
    const settings = this.db.client.config.connection as pg.ClientConfig;
    const client = new pg.Client({ ...settings, application_name: HELD_READS_NAME });
    this.connecting = client;
    client.on('error', () => this.drop(client)); // a reset, a server gone: unhandled, it would end the process
    client.on('end', () => this.drop(client));
    dropOnQueryTimeout(client);
    try {
      await client.connect();
      if (this.closed) return await endClient(client);
      this.client = client;
      this.busy = false;
    } catch {
      this.retryAt = Date.now() + RETRY_MS;
      cutClient(client);
    } finally {
      this.connecting = null;
    }
  }

  private drop(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = null;
    this.busy = false;
    cutClient(client);
  }
}
