import type { Ctx } from '../context.js';
import { currentKeyHash, hashBlogKey, lookupBlogKey } from '../auth/blog-keys.js';
import { unavailable } from '../errors.js';
import { within } from '../lib/deadline.js';
import { FreshRead, SingleFlight, retriedAfter } from './coalesce.js';
import { contentVersions } from './query-store.js';
import { SqliteChangeSignal } from '../db/sqlite-change-signal.js';
import { COMPRESS_MIN_BYTES, type Coding, codedEtag, compress } from './compression.js';
import { type CachedResponse, ResponseCache, type Variant } from './response-cache.js';
import { type ContentRoute, buildResponse, routeKey } from './responses.js';
import type { SearchSlots } from './search-slots.js';

/** What to send: the entry, or its variant in `coding`. */
function delivered(res: CachedResponse, variant: Variant | null, coding: Coding | null): Delivered {
  return variant
    ? { status: res.status, body: variant.body, etag: variant.etag, lastModified: res.lastModified, encoding: coding }
    : { status: res.status, body: res.body, etag: res.etag, lastModified: res.lastModified, encoding: null };
}

export interface Reader {
  workspaceId: string;
  /** Content version read for this request (after it arrived). */
  version: number;
  /** Hash of the presented key: the unit of rate limiting. */
  keyHash: string;
}

/** What to send for one request: the cached body, or its compressed variant. */
export interface Delivered {
  status: number;
  body: Buffer;
  etag: string | null;
  lastModified: string | null;
  /** The Content-Encoding of body; null for identity. */
  encoding: Coding | null;
}

interface WorkspaceState {
  /** Version at which keyHash was loaded. */
  keyVersion: number;
  keyHash: string | undefined;
  reload: SingleFlight<void>;
}

/**
 * Serving the content API from memory, correctly across processes. Per request: the presented
 * key is hashed and looked up in memory (a key unknown here is looked up in the database by its
 * hash); the workspace's content version is read (one read shared by the requests of one
 * event-loop turn, for every workspace they ask about: FreshRead); when the version moved, the
 * workspace's key is reloaded and its cached responses no longer match. Publishing, unpublishing,
 * deleting and regenerating keys all bump that version in their transaction.
 *
 * Every database wait here gives up after content.timeout with 503 `unavailable` (Retry-After):
 * a request never waits longer for a database that went silent, and never gets an answer older
 * than a change that returned before it arrived (no stale answers: docs/content-api.md).
 */
export class ContentDelivery {
  private readonly keys = new Map<string, string>(); // key hash -> workspace id
  private readonly workspaces = new Map<string, WorkspaceState>();
  private readonly cache: ResponseCache;
  private readonly fills = new SingleFlight<CachedResponse>();
  /** Searches running at once, per key (its workspace) and in all (search-slots.ts). */
  private readonly searches: SearchSlots;
  /** Content versions by workspace, read once per event-loop turn for all of that turn's workspaces. */
  private readonly fresh: FreshRead<string, number>;
  /** SQLite: the WAL header's token (one pread) tells that nothing was committed since a version was read. */
  private readonly signal: SqliteChangeSignal | null;
  private readonly known = new Map<string, { version: number; token: string }>();
  private readonly patience: number;
  private readonly onChange = ({ workspaceId }: { workspaceId: string }) => void this.warm(workspaceId);

  constructor(
    private readonly ctx: Ctx,
    searches: SearchSlots,
  ) {
    this.cache = new ResponseCache(ctx.config.content.cacheMaxBytes);
    this.searches = searches;
    // A read unanswered after a quarter of the deadline (a connection gone silent) is made again on another.
    this.patience = ctx.config.content.timeout / 4;
    this.signal = ctx.config.database.client === 'sqlite3' ? new SqliteChangeSignal(`${ctx.config.database.filename}-shm`) : null;
    this.fresh = new FreshRead((ids) => this.versions(ids));
    ctx.events.on('content.changed', this.onChange);
  }

  close(): void {
    this.ctx.events.off('content.changed', this.onChange);
    this.signal?.close();
  }

  /**
   * The workspaces' content versions. On SQLite, when nothing was committed by any process since
   * a version was read (the WAL header's token, taken before that read, is unchanged), it is
   * answered from memory: a database read per turn cost cached GETs about half again their CPU.
   */
  private async versions(ids: string[]): Promise<Map<string, number>> {
    const token = this.signal?.token() ?? null;
    if (token !== null) {
      const known = new Map<string, number>();
      for (const id of ids) {
        const k = this.known.get(id);
        if (k?.token === token) known.set(id, k.version);
      }
      if (known.size === ids.length) return known;
    }
    const read = await this.bounded(retriedAfter(() => contentVersions(this.ctx.db, ids), this.patience));
    if (token !== null) for (const [id, version] of read) this.known.set(id, { version, token });
    return read;
  }

  /** The reader behind a key, or null for a missing, wrong, regenerated or revoked key. */
  async authenticate(key: string): Promise<Reader | null> {
    if (!key) return null;
    const keyHash = hashBlogKey(key);
    let workspaceId = this.keys.get(keyHash);
    if (!workspaceId) {
      // Unknown here: maybe issued by another process. The database is the truth, looked up by
      // the key's hash (a unique index); wrong keys are limited per address (limits.blogKey).
      const found = await this.bounded(lookupBlogKey(this.ctx, key));
      if (!found) return null;
      workspaceId = found.workspaceId;
    }
    const version = (await this.fresh.get(workspaceId)).get(workspaceId);
    if (version === undefined) return null;
    const state = this.state(workspaceId);
    if (state.keyVersion !== version) {
      await state.reload.run(String(version), async () => {
        const current = await this.bounded(currentKeyHash(this.ctx, workspaceId));
        if (version < state.keyVersion) return; // a reload for a newer version finished first
        if (state.keyHash) this.keys.delete(state.keyHash);
        if (current) this.keys.set(current, workspaceId);
        state.keyHash = current;
        state.keyVersion = version;
      });
    }
    if (state.keyHash !== keyHash) return null;
    return { workspaceId, version, keyHash };
  }

  /**
   * The response for the route at the reader's version, in `coding` when the client accepts it
   * and the body is worth compressing. Cached; fills and compressions of concurrent misses are
   * shared, and each cached entry is compressed at most once per coding. A cached answer whose
   * coded form is made (every request for it but the first) is returned as is, not as a promise:
   * on the cached path a promise and its turn were a measurable share of a request's CPU.
   */
  respond(reader: Pick<Reader, 'workspaceId' | 'version'>, route: ContentRoute, coding: Coding | 'identity' = 'identity'): Delivered | Promise<Delivered> {
    const key = `${reader.workspaceId}\0${routeKey(route)}`;
    const hit = this.cache.get(key, reader.version);
    this.ctx.metrics.countCacheLookup(route.kind, hit !== undefined);
    if (!hit) return this.fill(key, reader, route).then((res) => this.coded(key, res, coding));
    return this.coded(key, hit, coding);
  }

  /** `res` in `coding`, or as it is when the coding is identity or would not pay. */
  private coded(key: string, res: CachedResponse, coding: Coding | 'identity'): Delivered | Promise<Delivered> {
    if (coding === 'identity' || !res.etag || res.body.length < COMPRESS_MIN_BYTES) return delivered(res, null, null);
    const variant = this.variant(key, res, coding);
    return variant instanceof Promise ? variant.then((v) => delivered(res, v, coding)) : delivered(res, variant, coding);
  }

  /** Build and cache the entry; concurrent misses share one build. */
  private fill(key: string, reader: Pick<Reader, 'workspaceId' | 'version'>, route: ContentRoute): Promise<CachedResponse> {
    return this.fills.run(`${key}\0${reader.version}`, async () => {
      const build = () => this.bounded(buildResponse(this.ctx.db, reader.workspaceId, route, reader.version));
      // The deadline starts once the search has its slot: waiting for one is bounded by searchWait.
      const res = route.kind === 'page' && route.q !== undefined ? await this.searches.run(reader.workspaceId, build) : await build();
      this.cache.set(key, res);
      return res;
    });
  }

  /** The entry compressed in `coding`: made on the first request for it, then shared (null: not smaller). */
  private variant(key: string, res: CachedResponse, coding: Coding): Promise<Variant | null> | Variant | null {
    const variants = (res.variants ??= new Map());
    const made = variants.get(coding);
    if (made !== undefined) return made;
    const making = compress(res.body, coding).then(
      (body) => {
        this.ctx.metrics.contentCompressions.inc({ encoding: coding });
        if (body.length >= res.body.length) return null;
        this.cache.grow(key, res, body.length);
        return { body, etag: codedEtag(res.etag!, coding) };
      },
      (err: unknown) => {
        this.ctx.log.warn({ err, coding }, 'content response could not be compressed: sent uncompressed');
        return null;
      },
    );
    variants.set(coding, making);
    // Once made, the variant itself: later requests need not wait for a promise.
    void making.then((v) => variants.set(coding, v));
    return making;
  }

  /** After a change in this process: rebuild page 0 and the sitemap so first readers do not all miss. */
  async warm(workspaceId: string): Promise<void> {
    try {
      const version = (await this.fresh.get(workspaceId)).get(workspaceId);
      if (version === undefined) return;
      const warmed = (route: ContentRoute) => {
        const key = `${workspaceId}\0${routeKey(route)}`;
        return this.cache.get(key, version) ?? this.fill(key, { workspaceId, version }, route);
      };
      await Promise.all([warmed({ kind: 'page', page: 0, limit: 10 }), warmed({ kind: 'sitemap' })]);
    } catch (err) {
      this.ctx.log.warn({ err, workspaceId }, 'content cache warm-up failed');
    }
  }

  /** `work`, or 503 `unavailable` once content.timeout passed (the query itself ends on the database's own deadline). */
  private bounded<T>(work: Promise<T>): Promise<T> {
    const ms = this.ctx.config.content.timeout;
    return within(work, ms, () => unavailable('database', `The database did not answer within ${ms} ms; try again in a moment`, { failure: 'silent' }));
  }

  private state(workspaceId: string): WorkspaceState {
    let s = this.workspaces.get(workspaceId);
    if (!s) {
      s = { keyVersion: -1, keyHash: undefined, reload: new SingleFlight() };
      this.workspaces.set(workspaceId, s);
    }
    return s;
  }
}
