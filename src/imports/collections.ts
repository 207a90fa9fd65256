import { access } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../errors.js';
import { readTextFile } from '../lib/text-file.js';
import { parseDataFile } from './front-matter.js';
import type { ImportItem, ImportNotes } from './types.js';

// Which markdown files of a static site are its posts, by the generator's own rules, so the pages
// around them (an about page, a list page, a 404) are not imported as posts:
// - Eleventy: a post is in the site's posts collection, which is made of tags (`tags: posts`)
//   from its front matter and from directory data files (`blog/blog.11tydata.js`, `blog/blog.json`),
//   merged as Eleventy merges them. svc runs no code: a data file's literal `tags` value is read.
// - Jekyll and Hexo: posts are the files under `_posts` (and `_drafts`); the rest are pages.
// - Hugo: posts are the pages of its main sections (`params.mainSections` in the site's config
//   file or its config/_default folder, else the section with the most pages); the rest of `content/` (content/about.md,
//   content/projects/) are pages.
// - Any: front matter with `pagination` is a list built from other posts; `permalink: false` was
//   never written out; `eleventyExcludeFromCollections: true` is kept out of every list.

const ELEVENTY_CONFIGS = ['eleventy.config.js', 'eleventy.config.mjs', 'eleventy.config.cjs', 'eleventy.config.ts', '.eleventy.js', '.eleventy.cjs'];
const HUGO_CONFIGS = ['hugo.toml', 'hugo.yaml', 'hugo.yml', 'hugo.json', 'config.toml', 'config.yaml', 'config.yml', 'config.json'];
const HUGO_PARAMS = ['params.toml', 'params.yaml', 'params.yml', 'params.json'];
/** Folders above the imported one looked in for the site's config (content/blog -> the site). */
const LEVELS = 4;
/** The names Eleventy sites give their posts collection: its starter's `posts`, its own site's `blog`. */
const POST_COLLECTIONS = new Set(['posts', 'post', 'blog']);
// A data file's literal tags: `tags: ["posts"]`, `"tags": "posts"`.
const JS_TAGS = /["']?\btags["']?\s*:\s*(\[[^\]]{0,2000}\]|"[^"\n]*"|'[^'\n]*')/;
const QUOTED = /"([^"\n]*)"|'([^'\n]*)'/g;

/** The reason a file with this front matter is not a post of the old site, or undefined. */
export function notAPost(data: Record<string, unknown>): string | undefined {
  if (data.pagination !== undefined && data.pagination !== null && data.pagination !== false) return 'list pages (pagination in their front matter: the old site built them from other posts)';
  if (data.permalink === false) return 'files the old site did not publish (permalink: false)';
  if (data.eleventyExcludeFromCollections === true) return 'pages Eleventy keeps out of its collections (eleventyExcludeFromCollections: true)';
  return undefined;
}

/** Eleventy sites found so far, and their directory data files' tags, each file read once per import. */
export class SiteCollections {
  private readonly tagsByDir = new Map<string, Promise<{ tags: string[]; eleventy: boolean }>>();
  private readonly configByDir = new Map<string, Promise<boolean>>();
  private readonly tagsByFolder = new Map<string, Promise<string[] | undefined>>();

  constructor(private readonly notes: ImportNotes) {}

  /**
   * The tags directory data files give `file` (read from the import's folder `root`), when it is
   * part of an Eleventy site (a config at or above `root`, or a `*.11tydata.*` file); undefined
   * for another generator's file.
   */
  directoryTags(file: string, root: string): Promise<string[] | undefined> {
    // The same for every file of a folder: worked out once per folder (an archive's folders hold hundreds).
    const dir = path.dirname(file);
    const key = `${dir}\0${root}`;
    let pending = this.tagsByFolder.get(key);
    if (!pending) {
      pending = this.folderTags(dir, root);
      this.tagsByFolder.set(key, pending);
    }
    return pending;
  }

  private async folderTags(folder: string, root: string): Promise<string[] | undefined> {
    const tags: string[] = [];
    let eleventy = false;
    let dir = folder;
    let above = 0;
    for (;;) {
      const found = await this.dirData(dir);
      tags.push(...found.tags);
      eleventy ||= found.eleventy;
      if (await this.hasConfig(dir)) {
        eleventy = true;
        break;
      }
      if (path.relative(root, dir).startsWith('..') || dir === root) above++;
      const up = path.dirname(dir);
      if (up === dir || above > LEVELS) break;
      dir = up;
    }
    if (!eleventy) return undefined;
    return [...new Set(tags)];
  }

  private hasConfig(dir: string): Promise<boolean> {
    let pending = this.configByDir.get(dir);
    if (!pending) {
      pending = (async () => {
        for (const name of ELEVENTY_CONFIGS) if (await exists(path.join(dir, name))) return true;
        return false;
      })();
      this.configByDir.set(dir, pending);
    }
    return pending;
  }

  private dirData(dir: string): Promise<{ tags: string[]; eleventy: boolean }> {
    let pending = this.tagsByDir.get(dir);
    if (!pending) {
      pending = this.readDirData(dir);
      this.tagsByDir.set(dir, pending);
    }
    return pending;
  }

  private async readDirData(dir: string): Promise<{ tags: string[]; eleventy: boolean }> {
    const base = path.basename(dir);
    const tags: string[] = [];
    let eleventy = false;
    for (const name of [`${base}.11tydata.json`, `${base}.11tydata.js`, `${base}.11tydata.mjs`, `${base}.11tydata.cjs`, `${base}.json`]) {
      const file = path.join(dir, name);
      if (!(await exists(file))) continue;
      const dataFile = name.includes('.11tydata.');
      eleventy ||= dataFile;
      try {
        const text = await readTextFile(file);
        tags.push(...(name.endsWith('.json') ? jsonTags(parseDataFile(text, file)) : jsTags(text)));
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        if (dataFile) this.notes.warn(`Directory data files that could not be read were passed by, so the posts collection was told from front matter alone (${err.message.split('\n')[0]})`, file);
      }
    }
    return { tags, eleventy };
  }
}

const exists = (file: string) => access(file).then(() => true, () => false);

function jsonTags(data: unknown): string[] {
  const tags = typeof data === 'object' && data !== null ? (data as Record<string, unknown>).tags : undefined;
  if (typeof tags === 'string') return [tags];
  return Array.isArray(tags) ? tags.filter((t): t is string => typeof t === 'string') : [];
}

function jsTags(text: string): string[] {
  const literal = JS_TAGS.exec(text)?.[1];
  if (!literal) return [];
  return [...literal.matchAll(QUOTED)].map((m) => m[1] ?? m[2]);
}

/**
 * The Hugo sites the items belong to: each `content` folder above an item whose site folder holds
 * a Hugo config, with the main sections that config names (`params.mainSections`), or null when it
 * names none (Hugo then takes the section with the most pages).
 */
export async function hugoSites(items: ImportItem[], notes: ImportNotes): Promise<HugoSites> {
  const sites: HugoSites = new Map();
  const looked = new Set<string>();
  for (const item of items) {
    const content = item.file ? contentFolder(item.file) : undefined;
    if (!content || looked.has(content)) continue;
    looked.add(content);
    const site = path.dirname(content);
    // The config file at the site's top, then the config directory's defaults (config/_default:
    // its hugo.toml or config.toml, and params.toml, whose top-level keys are the params); of each
    // group, the first file there, as Hugo takes hugo.toml over config.toml.
    const defaults = path.join(site, 'config', '_default');
    const candidates: Array<[string | undefined, boolean]> = [
      [await firstFile(site, HUGO_CONFIGS), false],
      [await firstFile(defaults, HUGO_CONFIGS), false],
      [await firstFile(defaults, HUGO_PARAMS), true],
    ];
    let found = false;
    let sections: string[] | null = null;
    for (const [file, isParams] of candidates) {
      if (sections || !file) continue;
      found = true;
      try {
        const data = parseDataFile(await readTextFile(file), file) as Record<string, any> | null;
        const params = isParams ? data : data?.params;
        const given = params?.mainSections ?? params?.mainsections;
        const list = typeof given === 'string' ? [given] : Array.isArray(given) ? given.filter((x): x is string => typeof x === 'string') : [];
        if (list.length) sections = list;
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        notes.warn(`Hugo configs that could not be read were passed by, so the main section was taken to be the one with the most pages (${err.message.split('\n')[0]})`, file);
      }
    }
    if (found) sites.set(content, sections);
  }
  return sites;
}

async function firstFile(dir: string, names: string[]): Promise<string | undefined> {
  for (const name of names) if (await exists(path.join(dir, name))) return path.join(dir, name);
  return undefined;
}

/** Hugo's content folders (see hugoSites) and their configured main sections. */
export type HugoSites = Map<string, string[] | null>;

/** The nearest folder named `content` above the file, within LEVELS + 2 folders. */
function contentFolder(file: string): string | undefined {
  let dir = path.dirname(path.resolve(file));
  for (let i = 0; i < LEVELS + 2; i++) {
    if (path.basename(dir) === 'content') return dir;
    const up = path.dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
  return undefined;
}

/** Each Hugo item's section (its first folder under content/; '' for a page at content's top) by content folder. */
function hugoMainSections(items: ImportItem[], sites: HugoSites): Map<ImportItem, { main: string[]; section: string }> {
  const out = new Map<ImportItem, { main: string[]; section: string }>();
  const bySite = new Map<string, Array<{ item: ImportItem; section: string }>>();
  for (const item of items) {
    const content = item.file ? contentFolder(item.file) : undefined;
    if (!content || !sites.has(content)) continue;
    const parts = path.relative(content, path.resolve(item.file!)).split(path.sep);
    const entry = { item, section: parts.length > 1 ? parts[0] : '' };
    const list = bySite.get(content);
    if (list) list.push(entry); // in place: one site holds every post of the archive
    else bySite.set(content, [entry]);
  }
  for (const [content, list] of bySite) {
    let main = sites.get(content);
    if (!main) {
      const counts = new Map<string, number>();
      for (const { section } of list) if (section) counts.set(section, (counts.get(section) ?? 0) + 1);
      const most = [...counts].sort((a, b) => b[1] - a[1])[0];
      main = most ? [most[0]] : [];
    }
    for (const { item, section } of list) out.set(item, { main, section });
  }
  return out;
}

/**
 * Leave out the pages around the posts: in an Eleventy site whose posts carry a posts collection
 * (`posts`, `post` or `blog`), the files of the same import folder in none of them; in a folder
 * holding a `_posts` folder (Jekyll, Hexo), the files outside `_posts` and `_drafts`; in a Hugo
 * site (hugoSites), the files outside its main sections. Each is
 * named in a note with why.
 */
export function leaveOutPages(items: ImportItem[], notes: ImportNotes, hugo: HugoSites = new Map()): ImportItem[] {
  const hugoItems = hugoMainSections(items, hugo);
  const isPost = (c: string) => POST_COLLECTIONS.has(c.toLowerCase());
  const segments = (i: ImportItem) => (i.file && i.root ? path.relative(i.root, i.file).split(path.sep) : []);
  const eleventyRoots = new Set(items.filter((i) => i.eleventy && i.collections?.some(isPost)).map((i) => i.root));
  const jekyllRoots = new Set(items.filter((i) => segments(i).slice(0, -1).includes('_posts')).map((i) => i.root));
  return items.filter((i) => {
    if (i.root && eleventyRoots.has(i.root) && i.collections && !i.collections.some(isPost)) {
      notes.skip(`pages outside Eleventy's posts collection (not tagged ${[...POST_COLLECTIONS].join(', ')} in front matter or a directory data file)`, i.source);
      return false;
    }
    const inHugo = hugoItems.get(i);
    if (inHugo && !inHugo.main.includes(inHugo.section)) {
      notes.skip(`pages outside Hugo's main sections (${inHugo.main.join(', ') || 'none'}: params.mainSections, else the section with the most pages)`, i.source);
      return false;
    }
    const dirs = segments(i).slice(0, -1);
    if (i.root && jekyllRoots.has(i.root) && !dirs.includes('_posts') && !dirs.includes('_drafts')) {
      notes.skip('pages outside _posts and _drafts (Jekyll and Hexo publish only those as posts)', i.source);
      return false;
    }
    return true;
  });
}
