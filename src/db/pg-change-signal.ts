import pg from 'pg';

/** The channel the workspaces trigger notifies (migrations/2026-11-24-1000-add-content-change-notify.ts). */
export const CONTENT_CHANNEL = 'svc_content';

const RECONNECT_MS = 1_000;

/** How the listening connection shows in pg_stat_activity. */
export const LISTENER_NAME = 'svc content listener';

/** The payload of a TRUNCATE of workspaces (svc db copy --force): every workspace may have changed. */
const EVERY_WORKSPACE = '*';

/**
 * PostgreSQL's counterpart of SqliteChangeSignal: one connection of its own LISTENs on the
 * content channel, where every commit that moves a workspace's content version is announced.
 *
 * sync() resolves once every notification committed before it was called has arrived: the
 * committing backend signals the listener before its client hears of the commit, and the
 * listener's backend sends what it was notified of before it answers its next query; pg hands
 * messages over in order. So one `SELECT 1` on this connection, sent after the callers arrived,
 * vouches for all of them: callers of one event-loop turn share it. While the connection is down
 * (or not yet up) sync() answers false and callers read the database as before; a reconnect
 * starts a new generation, so nothing learnt before it is trusted after it.
 */
export class PgChangeSignal {
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private generation = 0;
  /** Notifications received (all workspaces) in this generation. */
  private count = 0;
  private readonly last = new Map<string, number>(); // workspace id -> count at its last notification
  private pending: Promise<boolean> | null = null;
  private chain: Promise<unknown> = Promise.resolve();

  /** `connection`: the pool's own connection settings (knex's parsed form of database.url). */
  constructor(private readonly connection: pg.ClientConfig) {}

  /** True once every notification committed before this call has been received; false when unknown. */
  sync(): Promise<boolean> {
    if (!this.client) {
      this.connect();
      return Promise.resolve(false);
    }
    this.pending ??= new Promise<boolean>((resolve) => {
      setImmediate(() => {
        this.pending = null;
        const client = this.client;
        if (!client) return resolve(false);
        const trip = this.chain.then(() => client.query('SELECT 1'));
        this.chain = trip.catch(() => undefined);
        trip.then(
          () => resolve(this.client === client),
          () => resolve(false),
        );
      });
    });
    return this.pending;
  }

  /** Changes when the workspace's content version may have moved (call after sync()). */
  tokenFor(workspaceId: string): string {
    return `${this.generation}:${this.last.get(workspaceId) ?? 0}`;
  }

  /** Changes on any workspace's change (call after sync()). */
  token(): string {
    return `${this.generation}:${this.count}`;
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.drop();
  }

  private connect(): void {
    if (this.connecting || this.closed || this.timer) return;
    const client = new pg.Client({ ...this.connection, application_name: LISTENER_NAME });
    client.on('notification', (n) => {
      if (this.client !== client || n.channel !== CONTENT_CHANNEL) return;
      if (n.payload === EVERY_WORKSPACE) return this.forgetAll();
      this.count++;
      if (n.payload) this.last.set(n.payload, this.count);
    });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    this.connecting = client
      .connect()
      .then(() => client.query(`LISTEN ${CONTENT_CHANNEL}`))
      .then(() => {
        if (this.closed) return void client.end().catch(() => undefined);
        // Everything known before this connection is forgotten: notifications may have been missed.
        this.forgetAll();
        this.client = client;
      })
      .catch(() => this.lost(client))
      .finally(() => (this.connecting = null));
  }

  /** A new generation: every token changes, so nothing read before is trusted after. */
  private forgetAll(): void {
    this.generation++;
    this.count = 0;
    this.last.clear();
  }

  private lost(client: pg.Client): void {
    if (this.client === client) this.drop();
    else client.end().catch(() => undefined);
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.connect();
    }, RECONNECT_MS);
    this.timer.unref();
  }

  private drop(): void {
    const client = this.client;
    this.client = null;
    this.generation++;
    client?.end().catch(() => undefined);
  }
}
