import { describe, expect, it } from 'vitest';
import { rowsByKeys } from '../../src/db/by-keys.js';
import { startDaemon } from '../helpers/daemon.js';
import { seedWorkspace } from '../helpers/seed.js';

// rowsByKeys is a lateral lookup per key on PostgreSQL and an IN list on SQLite: the same rows on
// both (this file runs on each in CI), across its 500-key chunks, with a key that matches nothing,
// keys given twice (in one chunk and across two: each row once, as an IN list), and the columns asked for only.
describe('rowsByKeys (db/by-keys.ts)', () => {
  it('returns the rows whose column is one of the keys, in chunks of 500, with the columns asked for', async () => {
    const d = await startDaemon({ jobs: false });
    const ws = await Promise.all(Array.from({ length: 1_201 }, (_, i) => seedWorkspace(d.app, { name: `k${i}.example` })));
    const ids = ws.map((w) => w.id);
    const rows = await rowsByKeys(d.app.db, 'workspaces', 'id', [...ids.slice(0, 1_100), 'ws_missing', ids[0], ids[1_099], ids[1_099]], ['id', 'name']);
    expect(rows.every((r) => Object.keys(r).sort().join() === 'id,name')).toBe(true);
    expect(rows.map((r) => r.id).sort()).toEqual(ids.slice(0, 1_100).sort());
    expect(new Map(rows.map((r) => [r.id, r.name])).get(ids[7])).toBe('k7.example');
    const all = await rowsByKeys(d.app.db, 'workspaces', 'id', [ids[1_200]]);
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ id: ids[1_200], name: 'k1200.example' });
    expect(await rowsByKeys(d.app.db, 'workspaces', 'id', [])).toEqual([]);
  });
});
