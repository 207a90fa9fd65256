// How much of a post's text svc shows, compared word for word with what the old site had: the
// words of both (tags, entities, link targets and the named leftovers taken out), the share of
// the longer one's words found in the other (each counted as often as it occurs).
const words = (text: string) =>
  text
    .replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\]\([^)]*\)/g, ' ')
    .replace(/&[a-z#0-9]+;/gi, ' ')
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu) ?? [];

export function wordSimilarity(before: string, after: string): number {
  const a = words(before);
  const b = words(after);
  const count = new Map<string, number>();
  for (const w of a) count.set(w, (count.get(w) ?? 0) + 1);
  let common = 0;
  for (const w of b) {
    const n = count.get(w) ?? 0;
    if (n > 0) {
      common++;
      count.set(w, n - 1);
    }
  }
  return common / Math.max(a.length, b.length, 1);
}

/** The bodies of a WordPress WXR export by slug (`content:encoded`), as the old site stored them. */
export function wxrBodies(xml: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const item of xml.match(/<item>[\s\S]*?<\/item>/g) ?? []) {
    const slug = /<wp:post_name>\s*(?:<!\[CDATA\[)?([^\]<]*)/.exec(item)?.[1] ?? '';
    const body = /<content:encoded>\s*<!\[CDATA\[([\s\S]*?)\]\]>\s*<\/content:encoded>/.exec(item)?.[1] ?? '';
    out.set(slug, body);
  }
  return out;
}
