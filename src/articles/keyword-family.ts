import type { Ctx } from '../context.js';
import type { Workspace } from '../workspaces/types.js';
import { listArticleKeywordRows } from './store.js';
import type { Article } from './types.js';

/**
 * The form two focus keywords compete in: NFC, lower case, hyphens, underscores and other
 * punctuation as spaces, and each word's plural -s/-es dropped, so "Pour-over coffees" and
 * "pour over coffee" are one keyword. Only for warnings: keyword research keeps its exact form.
 */
export function keywordFamily(keyword: string): string {
  return keyword
    .normalize('NFC')
    .toLowerCase()
    .replace(/[\p{P}\p{S}]+/gu, ' ')
    .split(/\s+/u)
    .filter(Boolean)
    .map(singular)
    .join(' ');
}

function singular(word: string): string {
  if (word.length <= 3 || word.endsWith('ss') || word.endsWith('us') || word.endsWith('is')) return word;
  if (/(ches|shes|xes|zes|sses)$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  return word.endsWith('s') ? word.slice(0, -1) : word;
}

export type KeywordRival = Pick<Article, 'id' | 'slug' | 'title' | 'status' | 'focusKeyword'>;

/** The other articles whose focus keyword is this one in another spelling (keywordFamily). */
export function rivalsAmong(article: Pick<Article, 'id' | 'focusKeyword'>, others: KeywordRival[]): KeywordRival[] {
  const family = article.focusKeyword ? keywordFamily(article.focusKeyword) : '';
  if (!family) return [];
  return others.filter((o) => o.id !== article.id && o.focusKeyword && keywordFamily(o.focusKeyword) === family);
}

/** The workspace's articles competing with this one for its focus keyword. */
export async function focusKeywordRivals(ctx: Ctx, ws: Workspace, article: Pick<Article, 'id' | 'focusKeyword'>): Promise<KeywordRival[]> {
  if (!article.focusKeyword) return [];
  return rivalsAmong(article, await listArticleKeywordRows(ctx.db, ws.id));
}

/** The warning an agent reads at create, update and audit. */
export function rivalWarning(keyword: string, rivals: KeywordRival[]): string {
  const list = rivals.map((r) => `"${r.slug}" (focus keyword "${r.focusKeyword}", ${r.status})`).join(', ');
  return `Focus keyword conflict: "${keyword}" is also the focus keyword of ${list}; articles competing for one search split its ranking. Choose another focus keyword, or merge them.`;
}
