import { type Db, openDb } from '../db/connect.js';
import { countRows, tablesInDependencyOrder } from './table-copy.js';
import { tablesIn } from './copy-rows.js';

/** An article whose published state a restore changes. */
export interface RolledBackArticle {
  id: string;
  slug: string;
  workspace: string;
  /** Its status in the database the restore replaces, and in the restored one (null: not there). */
  now: string | null;
  after: string | null;
}

/** What a restore rolls back, compared before the swap (so the operator is told before it is gone). */
export interface RestoreDiff {
  /** Published now, not published after the restore: a webhook receiver may still show these. */
  unpublished: RolledBackArticle[];
  /** Not published now (or not there), published after the restore. */
  republished: RolledBackArticle[];
  /** Tables whose row count differs. */
  rows: Array<{ table: string; now: number; after: number }>;
}

type ArticleRow = { id: string; slug: string; status: string; workspace: string };

/** Compare the current database with the one about to replace it; null when the current one cannot be read. */
export async function compareForRestore(current: string, restored: string): Promise<RestoreDiff | null> {
  const before = openDb({ client: 'sqlite3', filename: current, poolMax: 1 });
  const after = openDb({ client: 'sqlite3', filename: restored, poolMax: 1 });
  try {
    const [was, will] = [await articleStates(before), await articleStates(after)];
    const published = (s: string | null | undefined) => s === 'published';
    const unpublished: RolledBackArticle[] = [];
    const republished: RolledBackArticle[] = [];
    for (const [id, a] of was) {
      const b = will.get(id);
      if (published(a.status) && !published(b?.status)) unpublished.push({ id, slug: a.slug, workspace: a.workspace, now: a.status, after: b?.status ?? null });
    }
    for (const [id, b] of will) {
      const a = was.get(id);
      if (published(b.status) && !published(a?.status)) republished.push({ id, slug: b.slug, workspace: b.workspace, now: a?.status ?? null, after: b.status });
    }
    const rows: RestoreDiff['rows'] = [];
    for (const table of await tablesIn(before, await tablesInDependencyOrder(after))) {
      const [n, m] = [await countRows(before, table), await countRows(after, table)];
      if (n !== m) rows.push({ table, now: n, after: m });
    }
    return { unpublished, republished, rows };
  } catch {
    return null; // an unreadable current database is replaced all the same; there is just nothing to compare
  } finally {
    await before.destroy();
    await after.destroy();
  }
}

async function articleStates(db: Db): Promise<Map<string, ArticleRow>> {
  const rows: ArticleRow[] = await db('articles')
    .join('workspaces', 'workspaces.id', 'articles.workspace_id')
    .select('articles.id', 'articles.slug', 'articles.status', 'workspaces.name as workspace');
  return new Map(rows.map((r) => [r.id, r]));
}
