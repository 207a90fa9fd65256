import path from 'node:path';
import type { ImportItem } from './types.js';

// Where Hexo served a post: its `permalink` pattern (_config.yml) filled in with the post's date
// in the site's zone and its file's path under _posts (`:year/:month/:day/:title/` ->
// `/2024/01/02/trip/`). Hexo serves a post's asset folder beside it, so a file of that folder
// still has an address on the old site. A pattern with a placeholder svc cannot fill (`:category`,
// `:id`, `:post_title`) gives none.

/** The post's old path (`/2024/01/02/trip/`), or undefined when the pattern or the post cannot give it. */
export function hexoPostPath(pattern: string, item: ImportItem, zone: string | undefined): string | undefined {
  const at = item.dates.publishedAt;
  const posts = item.file?.split(path.sep).lastIndexOf('_posts') ?? -1;
  if (!at || !item.file || posts === -1) return undefined;
  const title = item.file.split(path.sep).slice(posts + 1).join('/').replace(/\.(md|markdown)$/i, '');
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', { timeZone: zone ?? 'UTC', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' })
      .formatToParts(new Date(at))
      .map((p) => [p.type, p.value]),
  );
  const values: Record<string, string> = {
    year: parts.year,
    month: parts.month,
    day: parts.day,
    i_month: String(Number(parts.month)),
    i_day: String(Number(parts.day)),
    hour: parts.hour,
    minute: parts.minute,
    second: parts.second,
    title,
    name: path.posix.basename(title),
  };
  let unknown = false;
  const filled = pattern.replace(/:(\w+)/g, (_, key: string) => values[key] ?? ((unknown = true), ''));
  return unknown ? undefined : `/${filled.replace(/^\/+/, '')}`;
}
