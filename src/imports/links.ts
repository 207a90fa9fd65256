import path from 'node:path';
import { articleUrl } from '../content/article-url.js';
import type { Workspace } from '../workspaces/types.js';
import { outsideCode } from './body-syntax.js';
import { htmlUrls, rewriteHtmlUrls } from './html-urls.js';
import { REFERENCE_DEST } from './images.js';
import type { ImportItem, ImportNotes } from './types.js';

// A post links to another of the same blog by its source file (`./other.md`, `/blog/other.md`,
// as Eleventy and editors write them), by its permalink, or by its old URL (`/posts/other/`,
// `https://old.example/2020/01/other/`). Once both are here, the link points where svc serves
// the other post; every target changed is listed once in a note.

// A markdown link's or image's destination, bounded by ), so one pass (an HTML <a href> is htmlUrls').
const MARKDOWN_LINK = /\]\(\s*<?[^()\s<>]+(?=>?(?:\s+["'][^"'\n]*["'])?\s*\))/g;
const SOURCE_FILE = /\.(md|markdown|mdx)$/i;
/** A link to a post's source file (a path, not a URL). */
const toSourceFile = (bare: string) => SOURCE_FILE.test(bare) && !/^[a-z][\w+.-]*:/i.test(bare);
// A link whose text is the name of the post file it points at (`[hello](<hello.md>)`).
const UNTITLED_POST_LINK = /\[([^[\]\n]+)\]\(<([^<>\n]+)\.md>\)/g;
const LISTS = new Set(['tag', 'tags', 'category', 'categories', 'author', 'authors', 'page', 'archive', 'archives', 'series']);

export function followLinks(items: ImportItem[], ws: Workspace, baseUrl: string, notes: ImportNotes): void {
  const bySlug = new Map<string, ImportItem>();
  const byPath = new Map<string, ImportItem>();
  const byFile = new Map<string, ImportItem>();
  const byName = new Map<string, string[]>(); // file name -> imported files of that name
  for (const item of items) {
    const slug = item.input.slug;
    if (!slug) continue;
    bySlug.set(slug, item);
    if (!item.file) continue;
    const file = path.resolve(item.file);
    byFile.set(file, item);
    const named = byName.get(path.basename(file));
    if (named) named.push(file); // in place: a Hugo site's bundles are thousands of index.md
    else byName.set(path.basename(file), [file]);
  }
  const host = URL.canParse(baseUrl) ? new URL(baseUrl).host : undefined;
  for (const item of items) {
    const old = item.oldUrl && item.input.slug ? pathOf(item.oldUrl, host) : undefined;
    if (old) byPath.set(old, item);
  }

  const target = (href: string, from: ImportItem): ImportItem | undefined => {
    const bare = href.split(/[?#]/)[0];
    if (!bare) return undefined;
    if (toSourceFile(bare)) {
      let decoded = bare;
      try {
        decoded = decodeURI(bare);
      } catch {
        return undefined;
      }
      if (from.file && !decoded.startsWith('/')) {
        const found = byFile.get(path.resolve(path.dirname(from.file), decoded));
        if (found) return found;
      }
      // A path from the site's content root: the one imported file that ends with it.
      const tail = path.sep + path.normalize(decoded.replace(/^\/+/, ''));
      const matches = (byName.get(path.basename(tail)) ?? []).filter((file) => file.endsWith(tail));
      return matches.length === 1 ? byFile.get(matches[0]) : undefined;
    }
    const p = pathOf(bare, host);
    if (p === undefined) return undefined;
    const byOld = byPath.get(p);
    if (byOld) return byOld;
    // The old site served each post under its slug (/posts/slug/, /2020/01/slug.html); lists are not posts.
    const segments = p.split('/').filter(Boolean);
    if (LISTS.has(segments[0]?.toLowerCase())) return undefined;
    const last = segments.pop()?.replace(/\.html?$/i, '');
    return last ? bySlug.get(last) : undefined;
  };

  for (const item of items) {
    let body = item.input.bodyMarkdown;
    if (!body || !/\]\(|\]:|<a\b/i.test(body)) continue;
    // Hexo's `{% post_link slug %}` without a title shows the post's title: written as a link
    // whose text is the file's name (shortcodes.ts), it takes the title once the post is found.
    if (body.includes('.md>)')) {
      body = outsideCode(body, UNTITLED_POST_LINK, (m) => {
        const [, text, file] = new RegExp(UNTITLED_POST_LINK.source).exec(m)!;
        const to = path.basename(file) === text ? target(`${file}.md`, item) : undefined;
        return to?.input.title ? `[${to.input.title.replace(/[\\`*_[\]<>]/g, '\\$&')}](<${file}.md>)` : m;
      });
    }
    // The new destination of a link's destination, or undefined to keep it.
    const relink = (href: string): string | undefined => {
      const to = target(href, item);
      if (!to && toSourceFile(href.split(/[?#]/)[0])) notes.postLinksLeft.push(`${item.source} (${href})`);
      const url = to && to !== item ? articleUrl(ws, to.input.slug!) : null;
      if (!url) return undefined;
      const hash = href.includes('#') ? href.slice(href.indexOf('#')) : '';
      notes.relinked.set(href, url + hash);
      return url + hash;
    };
    // HTML first (its attributes' places are the body's as read); a markdown match is the lead `](` and the destination.
    const html = htmlUrls(body).filter((u) => u.tag === 'a' && u.name === 'href');
    const inline = outsideCode(rewriteHtmlUrls(body, html, (u) => relink(u.value)), MARKDOWN_LINK, (whole) => {
      const [, lead, href] = /^(\]\(\s*<?)(.*)$/s.exec(whole)!;
      const url = relink(href);
      return url ? lead + url : whole;
    });
    // Reference definitions (`[other]: ./other.md`) are links too.
    item.input.bodyMarkdown = !inline.includes(']:')
      ? inline
      : outsideCode(inline, REFERENCE_DEST, (whole) => {
          const [, lead, href] = new RegExp(REFERENCE_DEST.source).exec(whole)!;
          const url = relink(href);
          return url ? lead + url : whole;
        });
  }
}

/** The path of a link on the old site (root-relative, or absolute on its host), without a trailing slash; undefined elsewhere. */
function pathOf(href: string, host: string | undefined): string | undefined {
  if (/^[a-z][\w+.-]*:/i.test(href) || href.startsWith('//')) {
    const absolute = href.startsWith('//') ? `https:${href}` : href;
    if (!URL.canParse(absolute)) return undefined;
    const u = new URL(absolute);
    if (!/^https?:$/.test(u.protocol) || u.host !== host) return undefined;
    return u.pathname.replace(/\/+$/, '') || undefined;
  }
  if (!href.startsWith('/')) return undefined;
  return href.replace(/\/+$/, '') || undefined;
}
