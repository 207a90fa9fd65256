import { writeFileSync } from 'node:fs';
import path from 'node:path';

/** One WXR item of type post; fields as WordPress writes them. */
export interface WxrPost {
  id: number;
  title?: string;
  name?: string;
  content?: string;
  status?: string;
  date?: string;
  /** More WXR elements for the item, as written. */
  extra?: string;
}

/** A minimal WordPress export (the namespaces and shape WordPress writes) holding these posts. */
export function wxr(posts: WxrPost[]): string {
  const items = posts
    .map(
      (p) => `<item><title><![CDATA[${p.title ?? `Post ${p.id}`}]]></title><dc:creator><![CDATA[admin]]></dc:creator>
<content:encoded><![CDATA[${p.content ?? `<p>Body of post ${p.id}.</p>`}]]></content:encoded><wp:post_id>${p.id}</wp:post_id>
<wp:post_date_gmt>${p.date ?? `2020-01-${String((p.id % 28) + 1).padStart(2, '0')} 10:00:00`}</wp:post_date_gmt><wp:post_name><![CDATA[${p.name ?? `post-${p.id}`}]]></wp:post_name>
<wp:status>${p.status ?? 'publish'}</wp:status><wp:post_type>post</wp:post_type>${p.extra ?? ''}</item>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8" ?>
<rss version="2.0" xmlns:excerpt="http://wordpress.org/export/1.2/excerpt/" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/">
<channel><title>Blog</title><wp:wxr_version>1.2</wp:wxr_version>
${items}
</channel></rss>`;
}

/** A Ghost 5 export holding these posts (html bodies). */
export function ghostExport(posts: Array<Record<string, unknown>>): string {
  return JSON.stringify({ db: [{ meta: { exported_on: 1700000000000, version: '5.75.0' }, data: { posts: posts.map((p, i) => ({ id: `p${i}`, type: 'post', status: 'published', published_at: '2023-01-02T03:04:05.000Z', updated_at: '2023-01-02T03:04:05.000Z', ...p })) } }] });
}

export const write = (dir: string, name: string, text: string) => {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return name;
};
