import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { outsideCode } from './body-syntax.js';
import { assetFolderFile } from './images.js';
import type { ImportItem, ImportNotes } from './types.js';

// A link to a file beside the post that is not an image (Hexo's `{% asset_link manual.pdf %}`, a
// page bundle's `[slides](slides.zip)`): svc stores images only, and under svc's URLs the relative
// path names nothing. The link points at the old site's copy when the post's old address is known
// (its front matter `permalink`, or Hexo's permalink pattern), else only its text is kept; either
// way the summary names it.

// A markdown link (not an image) to a relative destination: its text and its destination. Links
// elsewhere do not match, so a body without relative links costs no lex (outsideCode).
const LINK = /(?<!!)\[([^[\]\n]*)\]\([ \t]*<?(?![a-z][\w+.-]*:|[/#])([^()\s<>]+)>?(?:[ \t]+"[^"\n]*")?[ \t]*\)/gi;
const NOT_A_FILE = /^(?:[a-z][\w+.-]*:|\/|#)|\/$|\.(md|markdown|mdx|html?|jpe?g|png|gif|webp|avif|svg)$/i;

export function linksToOtherFiles(items: ImportItem[], baseUrl: string, notes: ImportNotes): void {
  for (const item of items) {
    const body = item.input.bodyMarkdown;
    if (!body || !item.file || !item.root || !body.includes('](')) continue;
    // Most relative links name another post or an image: only a link to some other file is looked at.
    if (![...body.matchAll(LINK)].some((m) => !NOT_A_FILE.test(m[2].split(/[?#]/)[0]))) continue;
    const root = realpathSync(item.root);
    // The folder of the old page: `/2024/01/02/trip/` as it is, `/2024/trip.html` without its file name.
    const folder = item.oldUrl && (/\.html?$/i.test(item.oldUrl) ? item.oldUrl.replace(/[^/]*$/, '') : item.oldUrl.replace(/\/?$/, '/'));
    const oldPage = folder && URL.canParse(folder, baseUrl) ? new URL(folder, baseUrl) : undefined;
    item.input.bodyMarkdown = outsideCode(body, LINK, (m) => {
      const [, text, dest] = new RegExp(LINK.source, 'i').exec(m)!;
      const rel = dest.split(/[?#]/)[0];
      if (NOT_A_FILE.test(rel)) return m;
      const file = assetFolderFile(item.file!, rel) ?? path.resolve(path.dirname(item.file!), rel);
      if (!isFileInside(file, root)) return m;
      const there = oldPage ? new URL(dest, oldPage).href : undefined;
      notes.filesLeft.push(`${item.source} (${there ? `${dest} -> ${there}` : dest})`);
      return there ? `[${text || dest}](<${there}>)` : text || dest;
    });
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
