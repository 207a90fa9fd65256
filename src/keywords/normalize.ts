/**
 * The form keywords are matched by, to each other and to articles' focus and secondary
 * keywords: Unicode NFC, lower case, runs of white space (any script's) as one space, trimmed.
 * "Cold  Brew", "cold brew" and a decomposed "CAFE\u0301" vs "café" each match; "cold-brew" and
 * "cold brew" do not (docs/keywords.md).
 */
export function normalizeKeyword(keyword: string): string {
  return keyword.normalize('NFC').toLowerCase().replace(/\s+/gu, ' ').trim();
}

/** The keywords once each, by normalised form, first spelling kept, order kept. */
export function uniqueKeywords(keywords: string[]): Array<{ keyword: string; normalized: string }> {
  const seen = new Map<string, string>();
  for (const k of keywords) {
    const normalized = normalizeKeyword(k);
    if (normalized && !seen.has(normalized)) seen.set(normalized, k.normalize('NFC').replace(/\s+/gu, ' ').trim());
  }
  return [...seen].map(([normalized, keyword]) => ({ keyword, normalized }));
}
