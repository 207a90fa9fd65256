import { describe, expect, it } from 'vitest';
import { type CachedResponse, ResponseCache } from '../../src/content/delivery.js';

const entry = (bytes: number): CachedResponse => ({ status: 200, body: Buffer.alloc(bytes), etag: '"e"', lastModified: null, version: 1 });

describe('response cache eviction', () => {
  it('evicts the entry used least recently (cached or read), and keeps within its bytes', () => {
    // Room for three 1 KB entries (each also counts its key and ~200 bytes of overhead).
    const cache = new ResponseCache(4 * 1024, 0);
    const [a, b, c] = [entry(1024), entry(1024), entry(1024)];
    cache.set('a', a);
    cache.set('b', b);
    cache.set('c', c);
    expect(cache.get('a', 1)).toBe(a); // a, the oldest, is read: b goes first
    cache.set('d', entry(1024));
    expect(cache.get('b', 1)).toBeUndefined();
    expect(cache.get('a', 1)).toBe(a);
    expect(cache.get('c', 1)).toBe(c);
    expect(cache.size).toBe(3);
    // Every entry read since: the one read longest ago goes, never the one just cached.
    expect(cache.get('d', 1)).toBeDefined();
    cache.set('e', entry(1024));
    expect(cache.size).toBe(3);
    expect(cache.get('a', 1)).toBeUndefined();
    expect(cache.get('e', 1)).toBeDefined();
    cache.delete('c');
    cache.delete('e');
    cache.delete('d');
    expect(cache.size).toBe(0);
    cache.set('f', entry(1024));
    expect(cache.get('f', 1)).toBeDefined();
  });

  it('treats an entry of another version as absent', () => {
    const cache = new ResponseCache(64 * 1024);
    cache.set('a', entry(10));
    expect(cache.get('a', 2)).toBeUndefined();
  });
});
