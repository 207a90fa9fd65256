import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/connect.js';
import { SqliteChangeSignal } from '../../src/content/delivery.js';
import { tempDir } from '../helpers/env.js';

// Always SQLite, also in the PostgreSQL run: this is the SQLite-only fast path of the
// content API's freshness check.
describe('SqliteChangeSignal', () => {
  it('changes on every commit from another connection pool, and only then', async () => {
    const filename = path.join(tempDir(), 'signal.sqlite');
    const reader = openDb({ client: 'sqlite3', filename, poolMax: 2 } as never);
    const writer = openDb({ client: 'sqlite3', filename, poolMax: 1 } as never);
    try {
      await writer.schema.createTable('t', (t) => t.integer('n'));
      await reader('t').select(); // the reader has a connection open too
      const signal = new SqliteChangeSignal(`${filename}-shm`);
      const first = signal.token();
      expect(first).not.toBeNull();
      await reader('t').select();
      expect(signal.token()).toBe(first); // reads change nothing

      const seen = new Set([first]);
      for (let i = 0; i < 5; i++) {
        await writer('t').insert({ n: i });
        const next = signal.token();
        expect(next).not.toBeNull();
        expect(seen.has(next)).toBe(false);
        seen.add(next);
      }
      await writer.raw('PRAGMA wal_checkpoint(RESTART)');
      await writer('t').insert({ n: 99 }); // the WAL restarts from the beginning: still a new token
      expect(seen.has(signal.token())).toBe(false);
      signal.close();
    } finally {
      await reader.destroy();
      await writer.destroy();
    }
  });

  it('answers null (read the database) when there is no -shm file', () => {
    const signal = new SqliteChangeSignal(path.join(tempDir(), 'missing.sqlite-shm'));
    expect(signal.token()).toBeNull();
  });
});
