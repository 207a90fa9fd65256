import type { Coding } from './compression.js';

/** A compressed form of a cached body, with its own ETag. */
export interface Variant {
  body: Buffer;
  etag: string;
}

/** A serialized response of the content API, as stored in the cache and sent as is. */
export interface CachedResponse {
  status: number;
  body: Buffer;
  /** Strong validator of the body; absent on errors. */
  etag: string | null;
  /** HTTP date of the content's last change, when known. */
  lastModified: string | null;
  /** The content version the entry was built at. */
  version: number;
  /**
   * Compressed variants, each made once, on the first request asking for its coding (a promise
   * while it is being made); null when compressing did not make the body smaller (content/delivery.ts).
   */
  variants?: Map<Coding, Promise<Variant | null> | Variant | null>;
}

interface Slot {
  key: string;
  entry: CachedResponse;
  size: number;
  /** Neighbours in recency order (older, newer). */
  older: Slot | null;
  newer: Slot | null;
}

const OVERHEAD = 200;

/**
 * The share of content.cacheMaxBytes that answers other than 200 (a missing slug's 404) may
 * take: requests for made-up slugs cost one lookup each, but cannot push the served pages out.
 */
export const MISS_SHARE = 1 / 16;

/**
 * Least-recently-used map of entries bounded by bytes. Recency is a linked list through the
 * slots, so a hit (every cached request) relinks two neighbours instead of deleting and
 * re-inserting its key in the Map (cheaper on the path every cached request takes).
 */
class ByteLru {
  private readonly slots = new Map<string, Slot>();
  private oldest: Slot | null = null;
  private newest: Slot | null = null;
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string, version: number): CachedResponse | undefined {
    const slot = this.slots.get(key);
    if (!slot || slot.entry.version !== version) return undefined;
    if (slot !== this.newest) {
      this.unlink(slot);
      this.append(slot);
    }
    return slot.entry;
  }

  set(key: string, entry: CachedResponse): void {
    this.delete(key);
    const size = entry.body.length + key.length + OVERHEAD;
    if (size > this.maxBytes) return;
    const slot: Slot = { key, entry, size, older: null, newer: null };
    this.slots.set(key, slot);
    this.append(slot);
    this.bytes += size;
    this.evict();
  }

  grow(key: string, entry: CachedResponse, n: number): void {
    const slot = this.slots.get(key);
    if (slot?.entry !== entry) return;
    slot.size += n;
    this.bytes += n;
    this.evict();
  }

  delete(key: string): void {
    const slot = this.slots.get(key);
    if (!slot) return;
    this.slots.delete(key);
    this.unlink(slot);
    this.bytes -= slot.size;
  }

  get size(): number {
    return this.slots.size;
  }

  get usedBytes(): number {
    return this.bytes;
  }

  private evict(): void {
    while (this.bytes > this.maxBytes && this.oldest) this.delete(this.oldest.key);
  }

  private append(slot: Slot): void {
    slot.older = this.newest;
    slot.newer = null;
    if (this.newest) this.newest.newer = slot;
    else this.oldest = slot;
    this.newest = slot;
  }

  private unlink(slot: Slot): void {
    if (slot.older) slot.older.newer = slot.newer;
    else this.oldest = slot.newer;
    if (slot.newer) slot.newer.older = slot.older;
    else this.newest = slot.older;
    slot.older = slot.newer = null;
  }
}

/**
 * The serialized responses of the content API, bounded by bytes (bodies and their compressed
 * variants): 200s in one LRU, every other answer (404s of missing slugs) in another of at most
 * MISS_SHARE of the bytes. Entries carry the content version they were built at; a reader with
 * another version treats them as absent.
 */
export class ResponseCache {
  private readonly found: ByteLru;
  private readonly missing: ByteLru;

  constructor(maxBytes: number, missShare = MISS_SHARE) {
    const missBytes = Math.floor(maxBytes * missShare);
    this.found = new ByteLru(maxBytes - missBytes);
    this.missing = new ByteLru(missBytes);
  }

  get(key: string, version: number): CachedResponse | undefined {
    return this.found.get(key, version) ?? this.missing.get(key, version);
  }

  set(key: string, entry: CachedResponse): void {
    this.delete(key);
    (entry.status === 200 ? this.found : this.missing).set(key, entry);
  }

  /** Count `n` more bytes for the entry under `key` (a variant was added), if it is still the one cached. */
  grow(key: string, entry: CachedResponse, n: number): void {
    (entry.status === 200 ? this.found : this.missing).grow(key, entry, n);
  }

  delete(key: string): void {
    this.found.delete(key);
    this.missing.delete(key);
  }

  get size(): number {
    return this.found.size + this.missing.size;
  }

  /** Bytes held by answers other than 200. */
  get missBytes(): number {
    return this.missing.usedBytes;
  }
}
