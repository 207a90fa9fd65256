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
}

/**
 * Least-recently-used map of serialized responses, bounded by bytes. Entries carry the content
 * version they were built at; a reader with another version treats them as absent.
 */
export class ResponseCache {
  private readonly entries = new Map<string, CachedResponse>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string, version: number): CachedResponse | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.version !== version) return undefined;
    // Re-insert: Map order is the recency order.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  set(key: string, entry: CachedResponse): void {
    this.delete(key);
    const size = entry.body.length + key.length + 200;
    if (size > this.maxBytes) return;
    this.entries.set(key, entry);
    this.bytes += size;
    for (const [oldest, e] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= e.body.length + oldest.length + 200;
    }
  }

  delete(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    this.bytes -= e.body.length + key.length + 200;
  }

  get size(): number {
    return this.entries.size;
  }
}
