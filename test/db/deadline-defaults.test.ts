import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeDb, openDb } from '../../src/db/connect.js';

describe('openDb deadlines', () => {
  it('a deadline passed as undefined keeps its default instead of waiting for nothing', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'svc-deadlines-'));
    const db = openDb({ client: 'sqlite3', filename: path.join(dir, 'svc.sqlite'), poolMax: 1, busyTimeout: undefined, acquireTimeout: undefined });
    try {
      const [row] = (await db.raw('PRAGMA busy_timeout')) as Array<Record<string, number>>;
      expect(Object.values(row)[0]).toBe(5_000);
      expect(db.client.config.acquireConnectionTimeout).toBe(10_000);
    } finally {
      await closeDb(db);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
