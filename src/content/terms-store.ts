import type { Queryable } from '../db/connect.js';
import { groupSizes } from './snapshot-ranks.js';

/** A category or tag a change touched, with the lastmod that change gives it. */
export interface TermChange {
  kind: 'category' | 'tag';
  slug: string;
  /** Known when the change added or updated a post in it; a removal-only change keeps the stored title. */
  title?: string;
  /**
   * The updatedAt of the post added or updated in it, or now for a removal. The stored lastmod
   * never goes backwards: publishing an imported post from 2019 leaves a tag that already has a
   * newer post at that post's time, so the sitemap matches the old site.
   */
  lastmod: string;
}

/** Merge changes to the same term: the latest lastmod wins, a known title is kept. */
export function mergeTermChanges(changes: TermChange[]): TermChange[] {
  const byKey = new Map<string, TermChange>();
  for (const c of changes) {
    const key = `${c.kind}:${c.slug}`;
    const prev = byKey.get(key);
    byKey.set(key, prev ? { ...prev, title: c.title ?? prev.title, lastmod: c.lastmod > prev.lastmod ? c.lastmod : prev.lastmod } : c);
  }
  return [...byKey.values()];
}

/**
 * Counts (top rank + 1) and lastmod of the categories and tags a change touched; empty ones go.
 * A few queries for the whole change, however many terms it touched (a published batch).
 */
export async function refreshTerms(db: Queryable, workspaceId: string, changes: TermChange[]): Promise<void> {
  const merged = mergeTermChanges(changes);
  const stored = await storedLastmods(db, workspaceId, merged);
  const counts = new Map<string, number>();
  for (const kind of ['category', 'tag'] as const) {
    for (const [slug, n] of await groupSizes(db, workspaceId, kind, merged.filter((t) => t.kind === kind).map((t) => t.slug))) counts.set(`${kind}:${slug}`, n);
  }
  const gone: TermChange[] = [];
  const upserts: Record<string, unknown>[] = [];
  for (const term of merged) {
    const count = counts.get(`${term.kind}:${term.slug}`) ?? 0;
    const before = stored.get(`${term.kind}:${term.slug}`);
    const lastmod = before && before > term.lastmod ? before : term.lastmod;
    const key = { workspace_id: workspaceId, kind: term.kind, slug: term.slug };
    if (count === 0) gone.push(term);
    else if (term.title !== undefined) upserts.push({ ...key, title: term.title, count, lastmod });
    else await db('content_terms').where(key).update({ count, lastmod });
  }
  for (let i = 0; i < upserts.length; i += 100) {
    await db('content_terms').insert(upserts.slice(i, i + 100)).onConflict(['workspace_id', 'kind', 'slug']).merge(['title', 'count', 'lastmod']);
  }
  for (const kind of ['category', 'tag'] as const) {
    const slugs = gone.filter((t) => t.kind === kind).map((t) => t.slug);
    for (let i = 0; i < slugs.length; i += 500) await db('content_terms').where({ workspace_id: workspaceId, kind }).whereIn('slug', slugs.slice(i, i + 500)).delete();
  }
}

async function storedLastmods(db: Queryable, workspaceId: string, terms: TermChange[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const kind of ['category', 'tag'] as const) {
    const slugs = terms.filter((t) => t.kind === kind).map((t) => t.slug);
    for (let i = 0; i < slugs.length; i += 500) {
      const rows = await db('content_terms').where({ workspace_id: workspaceId, kind }).whereIn('slug', slugs.slice(i, i + 500)).select('slug', 'lastmod');
      for (const r of rows) out.set(`${kind}:${r.slug}`, r.lastmod);
    }
  }
  return out;
}
