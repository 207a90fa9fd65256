import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Ctx } from '../context.js';
import { withTransaction } from '../db/tx.js';
import { AppError } from '../errors.js';
import { type CheckedImage, addImage, checkImage, checkRoomFor, readImageFile } from '../images/service.js';
import { linksAndImages } from '../lib/markdown.js';
import type { Workspace } from '../workspaces/types.js';
import { outsideCode } from './body-syntax.js';
import { type HtmlUrl, htmlUrls, rewriteHtmlUrls } from './html-urls.js';
import type { ImportItem, ImportNotes } from './types.js';

// Where a post names an image beside it: a markdown image or link destination `](dest`, a
// reference definition `[ref]: dest`, an HTML `<img src=dest>`. Each bounded, one pass. (An HTML
// link to an image file and a video's poster image are found by the HTML parser: htmlImage.)
const MARKDOWN_DEST = /(\]\([ \t]*<?)([^()\s<>]+)/g;
/** A markdown reference definition `[ref]: dest`: its lead and its destination. */
export const REFERENCE_DEST = /^( {0,3}\[[^\]\n]{1,1000}\]:[ \t]*<?)([^\s<>]+)/gm;
const HTML_IMG_SRC = /(<img\b[^>]{0,500}?\bsrc=["']?)([^"'\s>]+)/gi;
// A `srcset` of `<img>` or of a `<picture>`'s `<source>`: candidates `url [descriptor]`, comma separated.
const SRCSET = /(<(?:img|source)\b[^>]{0,500}?\bsrcset=)(["'])([^"'<>]{0,4000})\2/gi;
const IMAGE_NAME = /\.(jpe?g|png|gif|webp|avif|svg)$/i;
const MAY_NAME_AN_IMAGE = /\]\(|\]:|<img\b|\bsrcset=|<a\b|\bposter=/i;
/** An HTML link to an image file (`<a href="full.jpg">`, as a markdown link to one is) or a video's poster image. */
const htmlImage = (u: HtmlUrl) => isRelative(u.value) && ((u.tag === 'a' && u.name === 'href' && IMAGE_NAME.test(u.value.split(/[?#]/)[0])) || (u.tag === 'video' && u.name === 'poster'));
const one = (pattern: RegExp) => new RegExp(pattern.source, pattern.flags.replace('g', ''));
// Each with what any match holds: a body without it is not searched.
const PATTERNS = ([[MARKDOWN_DEST, ']('], [REFERENCE_DEST, ']:'], [HTML_IMG_SRC, '<']] as const).map(([all, needs]) => ({ all, one: one(all), needs }));
const SRCSET_ONE = one(SRCSET);
/** The URLs of a srcset value, each candidate's first word. */
const candidates = (srcset: string) => srcset.split(',').map((c) => c.trim().split(/\s+/)[0]).filter(Boolean);
const isRelative = (dest: string) => dest !== '' && !/^(?:[a-z][\w+.-]*:|\/|#)/i.test(dest);

/**
 * A file of the post's asset folder, when it has one and the file is there and not beside the
 * post: Hexo's `post_asset_folder: true` keeps a post's images in a folder named after it
 * (`_posts/my-post.md`, `_posts/my-post/photo.jpg`), which its asset tags and (with the marked
 * renderer's `postAsset`) plain relative images name by file name alone.
 */
export function assetFolderFile(post: string, rel: string): string | undefined {
  const folder = post.replace(/\.(md|markdown)$/i, '');
  if (folder === post) return undefined;
  const beside = path.resolve(path.dirname(post), rel);
  const inFolder = path.resolve(folder, rel);
  return !existsSync(beside) && existsSync(inFolder) ? inFolder : undefined;
}

/** The images of an import read from disk and checked, by their real path; not stored yet. */
export interface PostImages {
  found: Map<string, CheckedImage>;
  /** The real paths of the images each post uses. */
  used: Map<ImportItem, Set<string>>;
}

/**
 * Find the images each post names by a path relative to itself (a page bundle's files, `./x.png`,
 * a featured image `cover.jpg`), read and check each once (inside the import's source folder, its
 * size and type), and point the body and featured image at the URL svc will serve it at. What
 * cannot be carried (missing, outside the folder, too large, not an image) stays as written and
 * is named per post. Remote and root-relative images are left as they are.
 */
export async function findPostImages(ctx: Ctx, items: ImportItem[], notes: ImportNotes): Promise<PostImages> {
  const found = new Map<string, CheckedImage>();
  const failed = new Map<string, string>();
  const used = new Map<ImportItem, Set<string>>();
  const max = ctx.config.images.maxBytes;

  const carry = async (item: ImportItem, dest: string): Promise<string | undefined> => {
    if (!item.file || !item.root) return undefined;
    let rel = dest.split(/[?#]/)[0];
    try {
      rel = decodeURI(rel);
    } catch {
      // not percent-encoded: the path as written
    }
    const file = assetFolderFile(item.file, rel) ?? path.resolve(path.dirname(item.file), rel);
    let reason = failed.get(file);
    let image = found.get(file);
    if (!image && reason === undefined) {
      try {
        image = checkImage(ctx, await readImageFile(file, max, item.root), file);
        found.set(file, image);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        reason = err.code === 'file_not_found' ? 'no such file' : err.message.replace(`${file} `, '');
        failed.set(file, reason);
      }
    }
    if (!image) {
      notes.imageLeft(item.source, dest, reason!);
      return undefined;
    }
    used.set(item, (used.get(item) ?? new Set()).add(file));
    return image.url;
  };

  for (const item of items) {
    const featured = item.input.featuredImageUrl;
    if (featured && isRelative(featured)) {
      const url = await carry(item, featured);
      if (!url && !item.file) notes.warn('Featured images given as a path relative to the post were left out (use an absolute URL or a path starting with /)', item.source);
      item.input.featuredImageUrl = url;
    }
    const body = item.input.bodyMarkdown;
    if (!body || !item.file || !MAY_NAME_AN_IMAGE.test(body)) continue;
    const images = body.includes('![') ? new Set(linksAndImages(body).images.map((i) => i.src)) : new Set<string>();
    // Destinations first (async reads), then one synchronous rewrite with what was found.
    const urls = new Map<string, string | undefined>();
    const wanted = (dest: string, html: boolean) => isRelative(dest) && (html || IMAGE_NAME.test(dest.split(/[?#]/)[0]) || images.has(dest));
    for (const p of PATTERNS) {
      if (!body.includes(p.needs)) continue;
      // Outside code only: an image shown as code is neither read nor named.
      outsideCode(body, p.all, (m) => {
        const dest = p.one.exec(m)![2];
        if (wanted(dest, p.all === HTML_IMG_SRC)) urls.set(dest, undefined);
        return m;
      });
    }
    // Each candidate of a srcset (`a.jpg 1x, a@2x.jpg 2x`) is an image like any other.
    if (body.includes('<')) {
      outsideCode(body, SRCSET, (m) => {
        for (const dest of candidates(SRCSET_ONE.exec(m)![3])) if (isRelative(dest)) urls.set(dest, undefined);
        return m;
      });
    }
    const html = htmlUrls(body).filter(htmlImage);
    for (const u of html) urls.set(u.value, undefined);
    for (const dest of urls.keys()) urls.set(dest, await carry(item, dest));
    if ([...urls.values()].some(Boolean)) {
      // HTML first: its attributes' places are the body's as read.
      const rewritten = PATTERNS.reduce(
        (text, p) =>
          outsideCode(text, p.all, (m) => {
            const [, lead, dest] = p.one.exec(m)!;
            const url = urls.get(dest);
            return url ? lead + url : m;
          }),
        rewriteHtmlUrls(body, html, (u) => urls.get(u.value)),
      );
      item.input.bodyMarkdown = outsideCode(rewritten, SRCSET, (m) => {
        const [, lead, quote, value] = SRCSET_ONE.exec(m)!;
        const set = value.split(',').map((c) => {
          const dest = c.trim().split(/\s+/)[0];
          const url = dest ? urls.get(dest) : undefined;
          return url ? c.replace(dest, url) : c;
        });
        return `${lead}${quote}${set.join(',')}${quote}`;
      });
    }
    // Any other relative image (a form the patterns above do not take) is named too.
    for (const src of images) if (isRelative(src) && !urls.has(src)) notes.imageLeft(item.source, src, 'a form of image svc does not carry over');
  }
  return { found, used };
}

/**
 * Store the images the given posts use, each read again and held to the hash its URL names (a
 * file changed since it was read is refused, not stored under the wrong URL). Images the
 * workspace has already are not stored twice. Returns how many images the posts use and how many
 * were new.
 */
export async function storePostImages(ctx: Ctx, ws: Workspace, images: PostImages, items: ImportItem[]): Promise<{ used: number; added: number }> {
  const files = [...new Set(items.flatMap((i) => [...(images.used.get(i) ?? [])]))];
  // Before any is stored: checked one add at a time, an import past the bound stored its batches
  // up to it and stopped, its posts not imported, naming one file where all need room.
  await checkRoomFor(ctx, ws, files.map((f) => images.found.get(f)!), (n) => `The ${n} new image${n === 1 ? '' : 's'} of these posts`);
  let added = 0;
  // One transaction per batch of up to STORE_BATCH_BYTES (a commit per image would cost a sync each).
  let batch: Array<{ file: string; bytes: Buffer }> = [];
  let size = 0;
  const flush = async () => {
    const stored = batch;
    batch = [];
    size = 0;
    await withTransaction(ctx.db, async (trx) => {
      for (const { file, bytes } of stored) if ((await addImage({ ...ctx, db: trx }, ws, bytes, file)).added) added++;
    });
  };
  for (const file of files) {
    const bytes = await readImageFile(file, ctx.config.images.maxBytes);
    if (checkImage(ctx, bytes, file).hash !== images.found.get(file)!.hash) {
      throw new AppError('image_changed', 409, `${file} changed while it was imported; nothing of it was stored: run the import again`);
    }
    batch.push({ file, bytes });
    size += bytes.length;
    if (size >= STORE_BATCH_BYTES) await flush();
  }
  if (batch.length > 0) await flush();
  return { used: files.length, added };
}

const STORE_BATCH_BYTES = 32 * 1024 * 1024;

