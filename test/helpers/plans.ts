import type { Db } from '../../src/db/connect.js';

// content_sitemap_blocks is left out: the sitemap reads it whole by design, a row per 256 articles.
export const BIG = ['articles', 'publications', 'content_index', 'content_articles', 'content_tags', 'content_search', 'content_terms', 'webhook_events'];

/**
 * Plan lines (SQLite's EXPLAIN QUERY PLAN) that read a big table whole or by its workspace alone:
 * without statistics SQLite takes `workspace_id = ?` for a selective term, and on a one-workspace
 * install it is every row.
 */
export async function wideReads(db: Db, sql: string, bindings: unknown[]): Promise<string[]> {
  const rows: Array<{ detail: string }> = await db.raw(`explain query plan ${sql}`, bindings as never);
  // A LIMIT stops a walk early, but not a count's.
  const limited = /\blimit\b/i.test(sql) && !/\bcount\(/i.test(sql);
  return rows
    .map((r) => r.detail)
    .filter((d) => {
      const m = /^(?:SCAN|SEARCH) (\w+)(.*)$/.exec(d);
      if (!m || !BIG.includes(m[1])) return false;
      return /^SCAN/.test(d) ? !/VIRTUAL TABLE/.test(d) : !limited && /\(workspace_id=\?\)$/.test(m[2]);
    });
}
