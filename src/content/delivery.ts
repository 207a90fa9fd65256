import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Ctx } from '../context.js';
import { currentKeyHash, hashBlogKey, lookupBlogKey } from '../auth/blog-keys.js';
import { unavailable } from '../errors.js';
import { within } from '../lib/deadline.js';
import { contentVersions } from './query-store.js';
import { type ContentRoute, buildResponse, routeKey } from './responses.js';
import type { SearchSlots } from './search-slots.js';

export interface Delivered {
  status: number;
  body: Buffer;
  /** Strong validator of the body; absent on errors. */
  etag: string | null;
  lastModified: string | null;
  encoding?: Coding;
}

export interface CachedResponse extends Delivered {
  version: number;
  /** Compressed variants, made on the first request for their coding (a promise meanwhile); null when not smaller. */
  variants?: Map<Coding, Promise<Delivered | null> | Delivered | null>;
}

/** Least-recently-used entries bounded by bytes; a Map keeps insertion order, so a hit re-inserts its key. */
class ByteLru {
  readonly slots = new Map<string, { entry: CachedResponse; size: number }>();
  usedBytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string, version: number): CachedResponse | undefined {
    const slot = this.slots.get(key);
    if (!slot || slot.entry.version !== version) return undefined;
    this.slots.delete(key);
    this.slots.set(key, slot);
    return slot.entry;
  }

  /** `key` must be absent (ResponseCache.set deletes it first): a replaced slot's bytes would stay counted. */
  set(key: string, entry: CachedResponse): void {
    const size = entry.body.length + key.length + 200;
    if (size > this.maxBytes) return;
    this.slots.set(key, { entry, size: 0 });
    this.grow(key, entry, size);
  }

  /** Count `n` more bytes for the entry under `key`, if it is still the one cached. */
  grow(key: string, entry: CachedResponse, n: number): void {
    const slot = this.slots.get(key);
    if (slot?.entry !== entry) return;
    slot.size += n;
    this.usedBytes += n;
    for (const oldest of this.slots.keys()) {
      if (this.usedBytes <= this.maxBytes) break;
      this.delete(oldest);
    }
  }

  delete(key: string): void {
    const slot = this.slots.get(key);
    if (!slot) return;
    this.slots.delete(key);
    this.usedBytes -= slot.size;
  }
}

/** Answers other than 200 (404s of made-up slugs) get at most `missShare` of the bytes, so they cannot push served pages out. */
export class ResponseCache {
  private readonly found: ByteLru;
  private readonly missing: ByteLru;

  constructor(maxBytes: number, missShare = 1 / 16) {
    const missBytes = Math.floor(maxBytes * missShare);
    this.found = new ByteLru(maxBytes - missBytes);
    this.missing = new ByteLru(missBytes);
  }

  get(key: string, version: number): CachedResponse | undefined {
    return this.found.get(key, version) ?? this.missing.get(key, version);
  }

  set(key: string, entry: CachedResponse): void {
    this.delete(key);
    this.lru(entry).set(key, entry);
  }

  grow(key: string, entry: CachedResponse, n: number): void {
    this.lru(entry).grow(key, entry, n);
  }

  delete(key: string): void {
    this.found.delete(key);
    this.missing.delete(key);
  }

  get size(): number {
    return this.found.slots.size + this.missing.slots.size;
  }

  get missBytes(): number {
    return this.missing.usedBytes;
  }

  private lru(entry: CachedResponse): ByteLru {
    return entry.status === 200 ? this.found : this.missing;
  }
}

/** The codings the content API offers, in order of preference (br is smaller at the same speed). */
export const CODINGS = ['br', 'gzip'] as const;
export type Coding = (typeof CODINGS)[number];

/** Bodies below this go as they are: a TCP segment holds them, and their compression saves less than its headers cost. */
export const COMPRESS_MIN_BYTES = 1024;

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** Off the event loop. Brotli 5, gzip 6: higher levels cost far more time for little, and a sitemap is compressed again after every publish. */
export function compress(body: Buffer, coding: Coding): Promise<Buffer> {
  if (coding === 'gzip') return gzip(body, { level: 6 });
  return brotli(body, {
    params: {
      [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
      [zlib.constants.BROTLI_PARAM_QUALITY]: 5,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
    },
  });
}

/** "abc" -> "abc-br": a coded variant's own strong validator. */
export const codedEtag = (etag: string, coding: Coding): string => `${etag.slice(0, -1)}-${coding}"`;

/** One read of the keys asked in an event-loop turn, started at its end: it sees all committed before they asked (a read in flight may not). */
export class FreshRead<K, V> {
  private keys: Set<K> | null = null;
  private pending: Promise<Map<K, V>> | null = null;

  constructor(private readonly read: (keys: K[]) => Promise<Map<K, V>>) {}

  get(key: K): Promise<Map<K, V>> {
    if (!this.keys) {
      const keys = (this.keys = new Set());
      this.pending = new Promise((resolve) =>
        setImmediate(() => {
          this.keys = null;
          resolve(this.read([...keys]));
        }),
      );
    }
    this.keys.add(key);
    return this.pending!;
  }
}

/** `read()` again if unanswered after `ms` (a silent connection): the first answer wins; both started after the caller asked. */
export function retriedAfter<T>(read: () => Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => read().then(resolve, reject), ms);
    read()
      .then(resolve, reject)
      .finally(() => clearTimeout(timer));
  });
}

/** Concurrent callers for the same key share one computation (cache fills). */
class SingleFlight<T> {
  private readonly inFlight = new Map<string, Promise<T>>();

  run(key: string, fn: () => Promise<T>): Promise<T> {
    let p = this.inFlight.get(key);
    if (!p) this.inFlight.set(key, (p = fn().finally(() => this.inFlight.delete(key))));
    return p;
  }
}

/**
 * "Has anything been committed?" on SQLite in WAL mode, in one pread: the wal-index header in the
 * `-shm` file (twice: bytes 0-47 and 48-95) changes with every commit of any process
 * (https://www.sqlite.org/walformat.html). token() is null when unsure: read the database.
 */
export class SqliteChangeSignal {
  private fd: number | null = null;
  private ino = -1;
  private readonly buf = Buffer.alloc(96);

  constructor(private readonly shmPath: string) {}

  token(): string | null {
    try {
      const ino = statSync(this.shmPath).ino;
      if (this.fd === null || ino !== this.ino) {
        this.close();
        this.fd = openSync(this.shmPath, 'r');
        this.ino = fstatSync(this.fd).ino;
        if (this.ino !== ino) return null;
      }
      if (readSync(this.fd, this.buf, 0, 96, 0) < 96) return null;
      const first = this.buf.subarray(0, 48);
      // Copies differ while a writer updates them; isInit (byte 12) is 0 before initialisation.
      if (!first.equals(this.buf.subarray(48, 96)) || first[12] === 0) return null;
      return first.toString('latin1');
    } catch {
      this.close();
      return null;
    }
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

export interface Reader {
  workspaceId: string;
  /** Content version read for this request (after it arrived). */
  version: number;
  /** Hash of the presented key: the unit of rate limiting. */
  keyHash: string;
}

/**
 * The content API from memory, correct across processes: each request reads the workspace's
 * content version (FreshRead), which every change to what is served bumps in its transaction;
 * when it moved, the key is reloaded and cached responses no longer match. Every database wait
 * gives up after content.timeout with 503 `unavailable`: never a stale answer.
 */
export class ContentDelivery {
  private readonly keys = new Map<string, string>(); // key hash -> workspace id
  private readonly workspaces = new Map<string, { keyVersion: number; keyHash: string | undefined }>();
  private readonly cache: ResponseCache;
  private readonly fills = new SingleFlight<CachedResponse>();
  private readonly reloads = new SingleFlight<void>();
  private readonly fresh: FreshRead<string, number>;
  private readonly signal: SqliteChangeSignal | null;
  private readonly known = new Map<string, { version: number; token: string }>();
  private readonly onChange = ({ workspaceId }: { workspaceId: string }) => void this.warm(workspaceId);

  constructor(
    private readonly ctx: Ctx,
    private readonly searches: SearchSlots,
  ) {
    this.cache = new ResponseCache(ctx.config.content.cacheMaxBytes);
    this.signal = ctx.config.database.client === 'sqlite3' ? new SqliteChangeSignal(`${ctx.config.database.filename}-shm`) : null;
    this.fresh = new FreshRead((ids) => this.versions(ids));
    ctx.events.on('content.changed', this.onChange);
  }

  close(): void {
    this.ctx.events.off('content.changed', this.onChange);
    this.signal?.close();
  }

  /**
   * On SQLite, from memory when nothing was committed since a version was read (the token, taken
   * before that read, is unchanged): the read would cost a cached GET more CPU than the rest of it.
   */
  private async versions(ids: string[]): Promise<Map<string, number>> {
    const token = this.signal?.token() ?? null;
    if (token !== null && ids.every((id) => this.known.get(id)?.token === token)) return new Map(ids.map((id) => [id, this.known.get(id)!.version]));
    // Unanswered after a quarter of the deadline (a connection gone silent): asked again on another.
    const read = await this.bounded(retriedAfter(() => contentVersions(this.ctx.db, ids), this.ctx.config.content.timeout / 4));
    if (token !== null) for (const [id, version] of read) this.known.set(id, { version, token });
    return read;
  }

  /** The reader behind a key, or null for a missing, wrong, regenerated or revoked key. */
  async authenticate(key: string): Promise<Reader | null> {
    if (!key) return null;
    const keyHash = hashBlogKey(key);
    let workspaceId = this.keys.get(keyHash);
    if (!workspaceId) {
      // Maybe issued by another process; wrong keys are limited per address (limits.blogKey).
      const found = await this.bounded(lookupBlogKey(this.ctx, key));
      if (!found) return null;
      workspaceId = found.workspaceId;
    }
    const version = (await this.fresh.get(workspaceId)).get(workspaceId);
    if (version === undefined) return null;
    let state = this.workspaces.get(workspaceId);
    if (!state) this.workspaces.set(workspaceId, (state = { keyVersion: -1, keyHash: undefined }));
    if (state.keyVersion !== version) {
      await this.reloads.run(`${workspaceId}\0${version}`, async () => {
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
   * The route at the reader's version, in `coding` when the body is worth compressing. A cached
   * answer is returned as is, not as a promise: a promise's turn is a real share of a cached GET's CPU.
   */
  respond(reader: Pick<Reader, 'workspaceId' | 'version'>, route: ContentRoute, coding: Coding | 'identity' = 'identity'): Delivered | Promise<Delivered> {
    const key = `${reader.workspaceId}\0${routeKey(route)}`;
    const hit = this.cache.get(key, reader.version);
    this.ctx.metrics.countCacheLookup(route.kind, hit !== undefined);
    if (!hit) return this.fill(key, reader, route).then((res) => this.coded(key, res, coding));
    return this.coded(key, hit, coding);
  }

  /** `res` in `coding`, compressed on the first request for it, then shared (null: not smaller). */
  private coded(key: string, res: CachedResponse, coding: Coding | 'identity'): Delivered | Promise<Delivered> {
    if (coding === 'identity' || !res.etag || res.body.length < COMPRESS_MIN_BYTES) return res;
    const variants = (res.variants ??= new Map());
    let made = variants.get(coding);
    if (made === undefined) {
      const making = compress(res.body, coding).then(
        (body) => {
          this.ctx.metrics.contentCompressions.inc({ encoding: coding });
          if (body.length >= res.body.length) return null;
          this.cache.grow(key, res, body.length);
          return { status: res.status, body, etag: codedEtag(res.etag!, coding), lastModified: res.lastModified, encoding: coding };
        },
        (err: unknown) => {
          this.ctx.log.warn({ err, coding }, 'content response could not be compressed: sent uncompressed');
          return null;
        },
      );
      variants.set(coding, (made = making));
      // Once made, the variant itself: later requests need not wait for a promise.
      void making.then((v) => variants.set(coding, v));
    }
    return made instanceof Promise ? made.then((v) => v ?? res) : (made ?? res);
  }

  private fill(key: string, reader: Pick<Reader, 'workspaceId' | 'version'>, route: ContentRoute): Promise<CachedResponse> {
    return this.fills.run(`${key}\0${reader.version}`, async () => {
      const build = () => this.bounded(buildResponse(this.ctx.db, reader.workspaceId, route, reader.version));
      // The deadline starts once the search has its slot: waiting for one is bounded by searchWait.
      const res = route.kind === 'page' && route.q !== undefined ? await this.searches.run(reader.workspaceId, build) : await build();
      this.cache.set(key, res);
      return res;
    });
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
}
