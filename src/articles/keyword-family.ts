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

/** The warning an agent reads at create, update and audit. */
export function rivalWarning(keyword: string, rivals: KeywordRival[]): string {
  const list = rivals.map((r) => `"${r.slug}" (focus keyword "${r.focusKeyword}", ${r.status})`).join(', ');
  return `Focus keyword conflict: "${keyword}" is also the focus keyword of ${list}; articles competing for one search split its ranking. Choose another focus keyword, or merge them.`;
}
