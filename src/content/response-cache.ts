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
   * Compressed variants, each made once, on the first request asking for its coding; null when
   * compressing did not make the body smaller (content/delivery.ts).
   */
  variants?: Map<Coding, Promise<Variant | null>>;
}

interface Slot {
  entry: CachedResponse;
  size: number;
}

const OVERHEAD = 200;

/**
 * Least-recently-used map of serialized responses, bounded by bytes (bodies and their compressed
 * variants). Entries carry the content version they were built at; a reader with another version
 * treats them as absent.
 */
export class ResponseCache {
  private readonly slots = new Map<string, Slot>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string, version: number): CachedResponse | undefined {
    const slot = this.slots.get(key);
    if (!slot || slot.entry.version !== version) return undefined;
    // Re-insert: Map order is the recency order.
    this.slots.delete(key);
    this.slots.set(key, slot);
    return slot.entry;
  }

  set(key: string, entry: CachedResponse): void {
    this.delete(key);
    const size = entry.body.length + key.length + OVERHEAD;
    if (size > this.maxBytes) return;
    this.slots.set(key, { entry, size });
    this.bytes += size;
    this.evict();
  }

  /** Count `n` more bytes for the entry under `key` (a variant was added), if it is still the one cached. */
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
    this.bytes -= slot.size;
  }

  get size(): number {
    return this.slots.size;
  }

  private evict(): void {
    for (const [oldest, slot] of this.slots) {
      if (this.bytes <= this.maxBytes) break;
      this.slots.delete(oldest);
      this.bytes -= slot.size;
    }
  }
}
