import type { Queryable } from '../db/connect.js';

/** Articles per sitemap block (a block can grow past it when older posts are inserted in the middle). */
export const BLOCK_SIZE = 256;

/**
 * The block of a row just inserted at `wsRank` (after its slot was opened): its older
 * neighbour's block, or a new block when it is the newest and that block is full.
 */
export async function blockFor(db: Queryable, workspaceId: string, wsRank: number): Promise<number> {
  const [older, newer] = await Promise.all([
    db('content_index').where({ workspace_id: workspaceId, ws_rank: wsRank - 1 }).first('sitemap_block'),
    db('content_index').where({ workspace_id: workspaceId, ws_rank: wsRank + 1 }).first('sitemap_block'),
  ]);
  if (!older) return newer ? Number(newer.sitemap_block) : 0;
  const block = Number(older.sitemap_block);
  if (newer) return block;
  return (await blockSize(db, workspaceId, block)) >= BLOCK_SIZE ? block + 1 : block;
}

export async function blockSize(db: Queryable, workspaceId: string, block: number): Promise<number> {
  const row = await db('content_index').where({ workspace_id: workspaceId, sitemap_block: block }).count<{ n: number }>({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

/** The newest block and how many rows it holds (for appending in bulk). */
export async function lastBlock(db: Queryable, workspaceId: string): Promise<{ block: number; size: number }> {
  const row = await db('content_index').where({ workspace_id: workspaceId }).orderBy('ws_rank', 'desc').first('sitemap_block');
  if (!row) return { block: 0, size: 0 };
  const block = Number(row.sitemap_block);
  return { block, size: await blockSize(db, workspaceId, block) };
}

/**
 * Split a block grown past twice BLOCK_SIZE (older posts inserted in the middle, e.g. an imported
 * archive published under newer posts), so no rebuild ever joins thousands of entries: blocks
 * above it move up by one and its newer half becomes the block above it. `touched` (the blocks
 * the caller will rebuild) is renumbered to match and gains both halves.
 */
export async function splitIfOversized(db: Queryable, workspaceId: string, block: number, touched: Set<number>): Promise<void> {
  const size = await blockSize(db, workspaceId, block);
  if (size <= 2 * BLOCK_SIZE) return;
  const ws = { workspace_id: workspaceId };
  await db('content_index').where(ws).andWhere('sitemap_block', '>', block).increment('sitemap_block', 1);
  // (workspace_id, block) is the key of the joined blocks: park them at negative numbers, then
  // bring them back one higher, so no row collides with another on the way (PostgreSQL checks
  // the key row by row).
  await db('content_sitemap_blocks').where(ws).andWhere('block', '>', block).update({ block: db.raw('-1 - ??', ['block']) });
  await db('content_sitemap_blocks').where(ws).andWhere('block', '<', 0).update({ block: db.raw('0 - ??', ['block']) });
  const middle = await db('content_index').where({ ...ws, sitemap_block: block }).orderBy('ws_rank').offset(Math.floor(size / 2)).first('ws_rank');
  await db('content_index').where({ ...ws, sitemap_block: block }).andWhere('ws_rank', '>=', Number(middle.ws_rank)).update({ sitemap_block: block + 1 });
  const renumbered = [...touched].map((b) => (b > block ? b + 1 : b));
  touched.clear();
  for (const b of [...renumbered, block, block + 1]) touched.add(b);
  // A run inserted at once may leave either half still oversized.
  await splitIfOversized(db, workspaceId, block + 1, touched);
  await splitIfOversized(db, workspaceId, block, touched);
}

/** Re-join a block's entries from its rows, newest first; an empty block is removed. */
export async function rebuildBlock(db: Queryable, workspaceId: string, block: number): Promise<void> {
  const rows = await db('content_index').where({ workspace_id: workspaceId, sitemap_block: block }).orderBy('ws_rank', 'desc').select('sitemap_json');
  const key = { workspace_id: workspaceId, block };
  if (rows.length === 0) {
    await db('content_sitemap_blocks').where(key).delete();
    return;
  }
  const entries = rows.map((r: { sitemap_json: string }) => r.sitemap_json).join(',');
  await db('content_sitemap_blocks').insert({ ...key, entries }).onConflict(['workspace_id', 'block']).merge(['entries']);
}

/** The whole sitemap's article entries, newest first: a few hundred rows at 100,000 articles. */
export async function sitemapEntries(db: Queryable, workspaceId: string): Promise<string[]> {
  const rows = await db('content_sitemap_blocks').where({ workspace_id: workspaceId }).orderBy('block', 'desc').select('entries');
  return rows.map((r: { entries: string }) => r.entries);
}
