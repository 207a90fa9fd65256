import type { Article } from '../articles/types.js';
import { normalizeKeyword } from './normalize.js';
import type { KeywordTarget } from './types.js';

type ArticleKeywords = Pick<Article, 'id' | 'slug' | 'title' | 'status' | 'focusKeyword' | 'secondaryKeywords'>;

/**
 * Which articles target which keyword, by normalised form: the focus keyword and the secondary
 * keywords (the article's tags are exactly these, decisions.md). An article that has a keyword as
 * focus and as secondary counts once, as focus. Focus targets come first.
 */
export function articleTargets(articles: ArticleKeywords[]): Map<string, { keyword: string; targets: KeywordTarget[] }> {
  const byKeyword = new Map<string, { keyword: string; targets: KeywordTarget[] }>();
  const add = (a: ArticleKeywords, keyword: string, role: KeywordTarget['role']) => {
    const n = normalizeKeyword(keyword);
    if (!n) return;
    const entry = byKeyword.get(n) ?? { keyword: keyword.trim(), targets: [] };
    if (entry.targets.some((t) => t.articleId === a.id)) return;
    entry.targets.push({ articleId: a.id, slug: a.slug, title: a.title, status: a.status, role });
    byKeyword.set(n, entry);
  };
  for (const a of articles) if (a.focusKeyword) add(a, a.focusKeyword, 'focus');
  for (const a of articles) for (const k of a.secondaryKeywords) add(a, k, 'secondary');
  return byKeyword;
}

/** Two or more articles with the same focus keyword compete for one search (cannibalisation). */
export const isConflict = (targets: KeywordTarget[]): boolean => targets.filter((t) => t.role === 'focus').length >= 2;
