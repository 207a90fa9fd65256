import { createHash } from 'node:crypto';
import path from 'node:path';
import type { ImportItem } from './types.js';

// Where Hexo served a post: its `permalink` pattern (_config.yml) filled in as Hexo fills it
// (hexo.io/docs/permalinks; lib/plugins/filter/post_permalink in Hexo's source). Hexo serves a
// post's asset folder at that address, so a file of that folder still has one on the old site.
//
// - `:title` is the post's path under _posts read with `new_post_name` (`:title.md` by default,
//   so `lorem/hello-world`); a front matter `slug` does not change it (Hexo sets a post's slug
//   from its file). `:name` is its last segment.
// - The date placeholders are the post's date in the site's zone; `:timestamp` its Unix seconds;
//   `:hash` the first 12 hex digits of the SHA-1 of `:title` and those seconds.
// - `:post_title` is the title made a lower-case slug; `:category` the slugs of the post's
//   category and its parents (`foo/bar`), each name through `category_map`, cased by
//   `filename_case`, `default_category` for a post without one.
// - Any other `:key` is the front matter's `key`, else `permalink_defaults`' (`:lang`, a plugin's `:abbrlink`).
// - `:id` is Hexo's database id unless the front matter gives one: unknown then, said per post.

/** The settings of a Hexo site's _config.yml that decide where it served its posts. */
export interface HexoSite {
  permalink: string;
  newPostName: string;
  defaultCategory: string;
  categoryMap: Record<string, unknown>;
  /** 0 as written, 1 lower case, 2 upper case. */
  filenameCase: number;
  permalinkDefaults: Record<string, unknown>;
}

const record = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const text = (v: unknown, fallback: string) => (typeof v === 'string' && v.trim() !== '' ? v : fallback);

/** A Hexo site's settings, with Hexo's defaults for those its config leaves out. */
export function hexoSite(config: Record<string, unknown>): HexoSite {
  return {
    permalink: text(config.permalink, ':year/:month/:day/:title/'),
    newPostName: text(config.new_post_name, ':title.md'),
    defaultCategory: text(config.default_category, 'uncategorized'),
    categoryMap: record(config.category_map),
    filenameCase: typeof config.filename_case === 'number' ? config.filename_case : 0,
    permalinkDefaults: record(config.permalink_defaults),
  };
}

/** The post's old path (`/2024/01/02/trip/`), or why it cannot be known. */
export type HexoAddress = { path: string } | { unknown: string };

/**
 * Give each post of a Hexo site its old address (its front matter `permalink`, else the site's
 * pattern filled in) and the folder its asset files were served from, or why they are unknown.
 */
export function hexoAddresses(site: HexoSite, items: ImportItem[], zone: string | undefined): void {
  for (const item of items) {
    const address = item.oldUrl === undefined ? hexoPostPath(site, item, zone) : { path: item.oldUrl };
    if ('unknown' in address) {
      item.oldUrlUnknown = address.unknown;
    } else {
      item.oldUrl = address.path;
      item.oldFolder = hexoAssetFolder(address.path);
    }
  }
}

// A placeholder's name: word characters, the last not `_` (`:title_:id` is `:title`, `_`, `:id`).
const PLACEHOLDER = /:(\w*[^\W_])/g;
// What new_post_name's date placeholders match in a file name (others match anything, shortest first).
const FILE_NAME_PARTS: Record<string, string> = { year: '(\\d{4})', month: '(\\d{2})', day: '(\\d{2})', i_month: '(\\d{1,2})', i_day: '(\\d{1,2})', hash: '([0-9a-f]{12})' };

function hexoPostPath(site: HexoSite, item: ImportItem, zone: string | undefined): HexoAddress {
  const posts = item.file?.split(path.sep).lastIndexOf('_posts') ?? -1;
  if (!item.file || posts === -1) return { unknown: 'it is not in _posts' };
  const relative = item.file.split(path.sep).slice(posts + 1).join('/');
  const fromName = fileNameParts(site.newPostName, relative.slice(0, relative.length - path.extname(relative).length));
  const fm = item.frontMatter ?? {};
  const at = item.dates.publishedAt;
  const datedByName = fromName.year && (fromName.month || fromName.i_month) && (fromName.day || fromName.i_day);
  if (!at || ((fm.date === undefined || fm.date === null || fm.date === '') && !datedByName)) return { unknown: "it has no date (Hexo dates such a post by its file's creation time, which a copy does not keep)" };
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', { timeZone: zone ?? 'UTC', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' })
      .formatToParts(new Date(at))
      .map((p) => [p.type, p.value]),
  );
  const slug = fromName.title;
  const seconds = String(Math.floor(Date.parse(at) / 1000));
  const title = typeof fm.title === 'string' || typeof fm.title === 'number' ? String(fm.title) : '';
  const category = categoryPath(site, fm.categories ?? fm.category);
  const known: Record<string, string | { unknown: string }> = {
    id: typeof fm.id === 'string' || typeof fm.id === 'number' ? String(fm.id) : { unknown: "the permalink's :id is Hexo's database id, which the files do not keep (an id in the post's front matter gives it)" },
    title: slug,
    slug,
    name: path.posix.basename(slug),
    post_title: hexoSlug(title, 1),
    year: parts.year,
    month: parts.month,
    day: parts.day,
    hour: parts.hour,
    minute: parts.minute,
    second: parts.second,
    i_month: String(Number(parts.month)),
    i_day: String(Number(parts.day)),
    timestamp: seconds,
    hash: createHash('sha1').update(slug + seconds).digest('hex').slice(0, 12),
    category,
  };
  // The file name's other parts (`:lang` of `:lang/:title.md`) win over the front matter, as in Hexo.
  const named = Object.entries(fromName).filter(([key]) => !Object.hasOwn(FILE_NAME_PARTS, key) && key !== 'title');
  const data: Record<string, unknown> = { ...fm, ...Object.fromEntries(named) };
  let unknown: string | undefined;
  const filled = site.permalink.replace(PLACEHOLDER, (whole, key: string) => {
    const given = Object.hasOwn(data, key) ? data[key] : Object.hasOwn(site.permalinkDefaults, key) ? site.permalinkDefaults[key] : undefined;
    const value = Object.hasOwn(known, key) ? known[key] : scalar(given);
    if (typeof value === 'string') return value;
    unknown ??= value?.unknown ?? (given === undefined ? `the permalink's ${whole} is in neither its front matter nor permalink_defaults (a plugin may have filled it in)` : `the permalink's ${whole} is not plain text in its front matter`);
    return '';
  });
  if (unknown) return { unknown };
  // With post asset folders Hexo makes an address that names no .html file a folder.
  const address = `/${filled.replace(/^\/+/, '')}`;
  return { path: address.endsWith('/') || address.endsWith('.html') ? address : `${address}/` };
}

/** Where Hexo serves a post's asset folder: its address without `.html` (`/2024/trip.html` -> `/2024/trip/`). */
const hexoAssetFolder = (address: string) => address.replace(/\.html?$/i, '').replace(/\/?$/, '/');

const scalar = (v: unknown): string | undefined => (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined);

/**
 * The parts a post's path names by `new_post_name` (`:year-:month-:day-:title.md` reads
 * `2024-01-02-trip` as the date and `trip`); without a `:title` there, or when the path does not
 * fit, its title is the whole path made a slug.
 */
function fileNameParts(newPostName: string, relative: string): Record<string, string> & { title: string } {
  const rule = newPostName.slice(0, newPostName.length - path.extname(newPostName).length);
  const names: string[] = [];
  const source = rule.replace(/[-[\]/{}()*+?.\\^$|]/g, '\\$&').replace(PLACEHOLDER, (_, name: string) => {
    names.push(name);
    return FILE_NAME_PARTS[name] ?? '(.+?)';
  });
  const match = new RegExp(`^${source}$`).exec(relative);
  const parts: Record<string, string> = match ? Object.fromEntries(names.map((name, i) => [name, match[i + 1]])) : {};
  return { ...parts, title: parts.title ?? hexoSlug(relative, 0) };
}

/**
 * The category of `:category`: its slug and its parents' (`[Travel, Asia]` is `travel/asia`), or
 * why it is unknown. Several lists of categories (`[[Travel], [Food]]`) give several categories,
 * and Hexo takes the one its database holds last, which the files do not say.
 */
function categoryPath(site: HexoSite, value: unknown): string | { unknown: string } {
  const given = (Array.isArray(value) ? value : [value]).filter((c) => Array.isArray(c) || (c !== null && c !== undefined && c !== ''));
  if (given.length === 0) return site.defaultCategory;
  const lists = given.some(Array.isArray) ? given.map((c) => (Array.isArray(c) ? c.filter((x) => x !== null && x !== undefined && x !== '') : [c])) : [given];
  if (lists.length > 1) return { unknown: "the permalink's :category is one of its several categories, and which one Hexo took the files do not say" };
  return lists[0].map((name) => hexoSlug(String(scalar(site.categoryMap[String(name)]) ?? name), site.filenameCase)).join('/');
}

// What Hexo's slugs replace with `-`: white space and ASCII punctuation (runs of them once).
const PUNCTUATION = /[\s~`!@#$%^&*()\-_+=[\]{}|\\;:"'<>,.?/]+/g;
// Latin letters with marks Hexo writes without them (é -> e); other scripts stay as they are.
const LATIN_WITH_MARKS = /[\u00C0-\u024F\u1E00-\u1EFF]/g;
const UNMARKED: Record<string, string> = { æ: 'ae', Æ: 'AE', œ: 'oe', Œ: 'OE', ø: 'o', Ø: 'O', ß: 's', đ: 'd', Đ: 'D', ł: 'l', Ł: 'L', ħ: 'h', Ħ: 'H' };

/** Hexo's slug of a name: marks off Latin letters, punctuation and spaces one `-`, none at the ends; 1 lower case, 2 upper. */
export function hexoSlug(name: string, transform: number): string {
  const slug = name
    .replace(LATIN_WITH_MARKS, (c) => UNMARKED[c] ?? c.normalize('NFD').replace(/\p{M}/gu, ''))
    .replace(/[\u0000-\u001f]/g, '')
    .replace(PUNCTUATION, '-')
    .replace(/^-+|-+$/g, '');
  return transform === 1 ? slug.toLowerCase() : transform === 2 ? slug.toUpperCase() : slug;
}
