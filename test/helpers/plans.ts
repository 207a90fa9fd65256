import { afterAll, beforeAll } from 'vitest';
import type { App } from '../../src/app.js';
import type { Ctx } from '../../src/context.js';
import type { ArticleCreateInput } from '../../src/articles/inputs.js';
import { insertDraft } from '../../src/articles/service.js';
import type { Article } from '../../src/articles/types.js';
import { type Db, writerOf } from '../../src/db/connect.js';
import { withTransaction } from '../../src/db/tx.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import type { Workspace } from '../../src/workspaces/types.js';
import { contentFixture } from '../content-api/fixture.js';

// A deployed SQLite file has no planner statistics (nothing runs ANALYZE), so SQLite takes
// `workspace_id = ?` for a selective term; on a one-workspace install it is every row. These
// helpers EXPLAIN statements as they were sent and keep the plan lines that read a big table
// whole, or by its workspace alone without a LIMIT to stop the walk.

export interface SentStatement {
  sql: string;
  bindings: unknown[];
}

/** Plan lines (SQLite) that read a table of `big` whole or by its workspace alone. */
export async function wideReads(db: Db, sql: string, bindings: unknown[], big: string[]): Promise<string[]> {
  const rows: Array<{ detail: string }> = await db.raw(`explain query plan ${sql}`, bindings as never);
  // A LIMIT stops a walk early, but not a count's, nor one whose rows are sorted first (a sort of
  // the rows' leading columns; one of the columns after those the index gives stops early).
  const sorted = rows.some((r) => /^USE TEMP B-TREE FOR (ORDER BY|GROUP BY|DISTINCT)/.test(r.detail));
  const limited = /\blimit\b/i.test(sql) && !/\bcount\(/i.test(sql) && !sorted;
  return rows
    .map((r) => r.detail)
    .filter((d) => {
      const m = /^(?:SCAN|SEARCH) (\w+)(.*)$/.exec(d);
      if (!m || !big.includes(m[1])) return false;
      return /^SCAN/.test(d) ? !/VIRTUAL TABLE/.test(d) : !limited && /\(workspace_id=\?\)$/.test(m[2]);
    });
}

/** Every statement sent on `db` and its writer while `work` runs. */
export async function statementsOf(db: Db, work: () => Promise<unknown>): Promise<SentStatement[]> {
  const sent: SentStatement[] = [];
  const on = (q: { sql: string; bindings?: unknown[] }) => sent.push({ sql: q.sql, bindings: q.bindings ?? [] });
  const dbs = new Set([db, writerOf(db)]);
  for (const d of dbs) d.on('query', on);
  try {
    await work();
  } finally {
    for (const d of dbs) d.off('query', on);
  }
  return sent;
}

/** The reads among `sent` (one of each text) whose plans read a big table wide, with the statement. */
export async function wideStatements(db: Db, sent: SentStatement[], big: string[]): Promise<string[]> {
  const reads = sent.filter((s) => /^\s*(select|with|update|delete|insert into \S+ \(.*\) select)/is.test(s.sql));
  const found: string[] = [];
  for (const s of new Map(reads.map((x) => [x.sql, x])).values()) {
    for (const line of await wideReads(db, s.sql, s.bindings, big)) found.push(`${line}\n    in: ${s.sql.slice(0, 300)}`);
  }
  return found;
}

/** `n` drafts post-0, post-1 ... dated a day apart from 2024-01-01 (as imported), in one transaction. */
export async function datedDrafts(ctx: Ctx, ws: Workspace, n: number, fields: (i: number) => Partial<ArticleCreateInput> = () => ({})): Promise<Article[]> {
  return withTransaction(ctx.db, async (trx) => {
    const out: Article[] = [];
    for (let i = 0; i < n; i++) {
      const at = new Date(Date.parse('2024-01-01T00:00:00Z') + i * 86_400_000).toISOString();
      out.push(await insertDraft({ ...ctx, db: trx }, ws, { title: `Post ${i}`, slug: `post-${i}`, bodyMarkdown: `Words ${i}.`, ...fields(i) }, { publishedAt: at, updatedAt: at }));
    }
    return out;
  });
}

/** A daemon (no jobs) with one workspace, seeded once before the describe's tests and stopped after them. */
export function planWorkspace(seed: (app: App, ws: Workspace) => Promise<unknown>): () => Awaited<ReturnType<typeof contentFixture>> {
  let f: Awaited<ReturnType<typeof contentFixture>> | undefined;
  beforeAll(async () => {
    f = await contentFixture({ jobs: false });
    await seed(f.d.app, await getWorkspace(f.d.app, f.ws.id));
  }, 120_000);
  afterAll(() => f?.d.stop());
  return () => f!;
}
