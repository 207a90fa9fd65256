import { describe, expect, it } from 'vitest';
import { insertRows } from '../../src/db/insert-rows.js';
import { startDaemon } from '../helpers/daemon.js';

// insertRows writes one VALUES list per statement, as many rows as the bound on parameters allows
// (30,000): 16,000 rows of two columns take two statements. Every row arrives once, nulls and
// quotes intact, on SQLite and PostgreSQL (this file runs on each in CI).
describe('insertRows (db/insert-rows.ts)', () => {
  it('inserts more rows than one statement may bind, each once, with nulls and quotes as given', async () => {
    const d = await startDaemon({ jobs: false });
    const db = d.app.db;
    await db.schema.createTable('bulk_rows_probe', (t) => {
      t.integer('n').primary();
      t.text('label');
    });
    const rows = Array.from({ length: 16_000 }, (_, n) => ({ n, label: n % 3 === 0 ? null : `it's "row" ${n}` }));
    await insertRows(db, 'bulk_rows_probe', rows);
    const back = await db('bulk_rows_probe').orderBy('n').select('n', 'label');
    expect(back).toHaveLength(16_000);
    expect(back.map((r) => Number(r.n))).toEqual(rows.map((r) => r.n));
    expect(back[3].label).toBeNull();
    expect(back[15_998].label).toBe(`it's "row" 15998`);
    await insertRows(db, 'bulk_rows_probe', []);
    await expect(insertRows(db, 'bulk_rows_probe', [{ n: 1, label: 'again' }])).rejects.toThrow();
  });
});
