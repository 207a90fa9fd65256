import { Parser } from 'htmlparser2';

// What an id may hold: letters (any script), their marks, digits, `-` and `_`. Nothing that could
// end the attribute, read as a URL scheme (`javascript:`) or a CSS selector, or hold a space.
export const SAFE_ID = /^[\p{L}\p{M}\p{N}_-]{1,256}$/u;

/**
 * GitHub's heading slug: lower case, punctuation dropped (letters of every script, digits, `-`
 * and `_` kept), each space a dash. A heading with nothing left is named `section`.
 */
export function headingSlug(text: string): string {
  const slug = text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}_\- ]/gu, '').replace(/ /g, '-').slice(0, 200);
  return slug || 'section';
}

/** Letters and digits only, lower case: how a heading's text and a fragment naming it are compared. */
const looseKey = (s: string): string => s.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');

const HEADING = /^h[1-6]$/;
// More text than a slug keeps (200 characters) is not read.
const TEXT_CAP = 400;

/** The link fragments of a body that could name a heading, by looseKey. */
export class LinkedFragments {
  private readonly byKey = new Map<string, string>();

  add(href: string): void {
    const fragment = fragmentOf(href);
    if (fragment && SAFE_ID.test(fragment) && !this.byKey.has(looseKey(fragment))) this.byKey.set(looseKey(fragment), fragment);
  }

  /** The fragment a link uses for a heading of this text (same letters and digits), if one does. */
  for(text: string): string | undefined {
    const key = looseKey(text);
    return key ? this.byKey.get(key) : undefined;
  }
}

function fragmentOf(href: string): string | null {
  if (!href.startsWith('#') || href.length < 2) return null;
  try {
    return decodeURIComponent(href.slice(1));
  } catch {
    return null;
  }
}

/**
 * The ids to give, in document order, to the headings of sanitised HTML that carry none (a
 * heading written as raw HTML in the body: marked gives ids only to the headings it parses).
 * Each is the fragment of a link in the same body that names the heading (`#Getting_Started`,
 * as Hexo, WordPress's table-of-contents plugins or a hand-written table of contents form it),
 * else GitHub's slug of its text as markdown headings get; unique among the body's ids, a repeat
 * taking `-1`, `-2`, ... One pass of the parser sanitize-html uses, so the cost is linear.
 */
export function missingHeadingIds(html: string): string[] {
  const used = new Set<string>();
  const missing: Array<{ text: string }> = [];
  const fragments = new LinkedFragments();
  // One entry per heading open without an id, in the order the sanitiser meets them; a nested
  // heading's text also counts for the one around it, up to what a slug can use.
  const stack: Array<{ text: string } | null> = [];
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (HEADING.test(name)) {
          const entry = attribs.id === undefined ? { text: '' } : null;
          if (entry) missing.push(entry);
          else used.add(attribs.id);
          stack.push(entry);
          return;
        }
        if (name === 'a' && attribs.href) fragments.add(attribs.href);
      },
      ontext(text) {
        const top = stack[stack.length - 1];
        if (top && top.text.length < TEXT_CAP) top.text += text;
      },
      onclosetag(name) {
        if (!HEADING.test(name) || !stack.length) return;
        const closed = stack.pop();
        const parent = stack[stack.length - 1];
        if (closed && parent && parent.text.length < TEXT_CAP) parent.text += closed.text;
      },
    },
    { decodeEntities: true },
  );
  parser.end(html);
  const tried = new Map<string, number>();
  const unique = (base: string) => {
    let n = tried.get(base) ?? 0;
    let id = n ? `${base}-${n}` : base;
    while (used.has(id)) id = `${base}-${++n}`;
    tried.set(base, n);
    used.add(id);
    return id;
  };
  return missing.map((entry) => {
    const text = entry.text.replace(/\s+/g, ' ').trim();
    const linked = fragments.for(text);
    return linked && !used.has(linked) ? unique(linked) : unique(headingSlug(text));
  });
}
