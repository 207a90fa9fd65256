import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { outsideCode } from './body-syntax.js';
import { type HtmlUrl, htmlUrls, rewriteHtmlUrls } from './html-urls.js';
import { REFERENCE_DEST, assetFolderFile } from './images.js';
import type { ImportItem, ImportNotes } from './types.js';

// A link to a file beside the post that is not an image (Hexo's `{% asset_link manual.pdf %}`, a
// page bundle's `[slides](slides.zip)` or `[slides]: slides.zip`, `<a href="slides.zip">`, a
// `<video src="clip.mp4">`): svc stores images only, and under svc's URLs the relative path
// names nothing. The link points at the old site's copy when the post's old address is known (its
// front matter `permalink`, or Hexo's permalink pattern), else only a link's text is kept (a
// reference definition and a player's source stay as written); either way the summary names it.

// A markdown link (not an image) to a relative destination: its text and its destination. Links
// elsewhere do not match, so a body without relative links costs no lex (outsideCode).
const LINK = /(?<!!)\[([^[\]\n]*)\]\([ \t]*<?(?![a-z][\w+.-]*:|[/#])([^()\s<>]+)>?(?:[ \t]+"[^"\n]*")?[ \t]*\)/gi;
const NOT_A_FILE = /^(?:[a-z][\w+.-]*:|\/|#)|\/$|\.(md|markdown|mdx|html?|jpe?g|png|gif|webp|avif|svg)$/i;
const isOtherFile = (dest: string) => dest !== '' && !NOT_A_FILE.test(dest.split(/[?#]/)[0]);
/** The HTML attributes that link to a file or play one (an `<img>`'s and a poster's are images.ts's). */
const fileAttribute = (u: HtmlUrl) => (u.tag === 'a' && u.name === 'href') || (u.name === 'src' && u.tag !== 'img');

export function linksToOtherFiles(items: ImportItem[], baseUrl: string, notes: ImportNotes): void {
  for (const item of items) {
    const body = item.input.bodyMarkdown;
    if (!body || !item.file || !item.root) continue;
    // Most relative links name another post or an image: only a link to some other file is looked at.
    const markdown = body.includes('](') && [...body.matchAll(LINK)].some((m) => isOtherFile(m[2]));
    const references = body.includes(']:') && [...body.matchAll(REFERENCE_DEST)].some((m) => isOtherFile(m[2]));
    const html = htmlUrls(body).filter((u) => fileAttribute(u) && isOtherFile(u.value));
    if (!markdown && !references && html.length === 0) continue;
    const root = realpathSync(item.root);
    // The folder of the old page (`/2024/01/02/trip/` as it is, `/2024/trip.html` without its
    // file name), where the page's relative links led, unless the site served its files elsewhere.
    const folder = item.oldFolder ?? (item.oldUrl && (/\.html?$/i.test(item.oldUrl) ? item.oldUrl.replace(/[^/]*$/, '') : item.oldUrl.replace(/\/?$/, '/')));
    const oldPage = folder && URL.canParse(folder, baseUrl) ? new URL(folder, baseUrl) : undefined;
    /** Where the old site served the file beside this post: null when unknown, undefined for no such file. */
    const oldCopy = (dest: string): string | null | undefined => {
      const rel = dest.split(/[?#]/)[0];
      const file = assetFolderFile(item.file!, rel) ?? path.resolve(path.dirname(item.file!), rel);
      if (!isFileInside(file, root)) return undefined;
      const there = oldPage ? new URL(dest, oldPage).href : null;
      notes.filesLeft.push(`${item.source} (${there ? `${dest} -> ${there}` : dest + (item.oldUrlUnknown ? `; old address unknown: ${item.oldUrlUnknown}` : '')})`);
      return there;
    };
    // HTML first: its attributes' places are the body's as read.
    let out = rewriteHtmlUrls(body, html, (u) => {
      const there = oldCopy(u.value);
      // A link of unknown address keeps its text (an <a> without href); a player keeps its source.
      return there ?? (there === null && u.tag === 'a' ? null : undefined);
    });
    if (markdown) {
      out = outsideCode(out, LINK, (m) => {
        const [, text, dest] = new RegExp(LINK.source, 'i').exec(m)!;
        if (!isOtherFile(dest)) return m;
        const there = oldCopy(dest);
        if (there === undefined) return m;
        return there ? `[${text || dest}](<${there}>)` : text || dest;
      });
    }
    if (references) {
      // A reference definition (`[slides]: slides.pdf`) stays as written when the old address is
      // unknown: without it, the links naming it would show their brackets as text.
      out = outsideCode(out, REFERENCE_DEST, (m) => {
        const [, lead, dest] = new RegExp(REFERENCE_DEST.source).exec(m)!;
        const there = isOtherFile(dest) ? oldCopy(dest) : undefined;
        return there ? lead + there : m;
      });
    }
    item.input.bodyMarkdown = out;
  }
}

/** A regular file inside `root`; false too for a path the system refuses (a name too long, a folder not readable). */
function isFileInside(file: string, root: string): boolean {
  try {
    return statSync(file, { throwIfNoEntry: false })?.isFile() === true && realpathSync(file).startsWith(root + path.sep);
  } catch {
    return false;
  }
}
