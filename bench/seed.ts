import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { App } from '../src/app.js';
import { CONTENT_TYPE_NAMES } from '../src/articles/categories.js';
import { toRow } from '../src/articles/store.js';
import type { Article } from '../src/articles/types.js';
import { generateBlogKey } from '../src/auth/blog-keys.js';
import type { Publication } from '../src/connectors/publications.js';
import { buildSnapshot, packSnapshot } from '../src/content/snapshot.js';
import { type RenderedBody, renderBody } from '../src/lib/markdown.js';
import { insertRun, touchState } from '../src/content/snapshot-store.js';
import { withTransaction } from '../src/db/tx.js';
import { newId } from '../src/lib/ids.js';
import { bumpContentVersion } from '../src/workspaces/store.js';
import { createWorkspace, getWorkspace } from '../src/workspaces/service.js';
import type { Workspace } from '../src/workspaces/types.js';

const WORDS = 'garden soil compost pruning tools water light seeds roots harvest season shade mulch bed spade rake hose plant grow leaf'.split(' ');

function body(variant: number, words: number): string {
  const parts = [`# Variant ${variant}`];
  for (let s = 0; s < Math.max(1, Math.round(words / 150)); s++) {
    parts.push(`## Section ${s + 1} of variant ${variant}`);
    parts.push(Array.from({ length: 150 }, (_, i) => WORDS[(i * 7 + s + variant) % WORDS.length]).join(' ') + '.');
  }
  return parts.join('\n\n');
}

export interface Seeded {
  ws: Workspace;
  key: string;
  slugs: string[];
  /** The bodies' markdown in bytes, all together. */
  markdownBytes: number;
}

/**
 * `count` published articles in a new workspace, through the real snapshot code (buildSnapshot +
 * insertRun) in bulk transactions. Bodies cycle through a few variants, rendered once each, unless
 * `bodyOf` gives each article its own (rendered each).
 */
export async function seedPublished(app: App, name: string, count: number, words: number, bodyOf?: (i: number) => string): Promise<Seeded> {
  const created = await createWorkspace(app, { name, websiteUrl: `https://${name}` });
  const { key, connectorId } = await generateBlogKey(app, created);
  const ws = await getWorkspace(app, created.id);
  const rendered = new Map<number, { markdown: string; r: RenderedBody }>();
  for (let v = 0; v < 8; v++) {
    const markdown = body(v, words);
    rendered.set(v, { markdown, r: renderBody(markdown) });
  }
  const start = Date.now() - count * 1000;
  const slugs: string[] = [];
  let markdownBytes = 0;
  for (let from = 0; from < count; from += 1000) {
    const articles: Article[] = [];
    const pubs: Publication[] = [];
    for (let i = from; i < Math.min(count, from + 1000); i++) {
      const at = new Date(start + i * 1000).toISOString();
      const v = rendered.get(i % 8)!;
      const slug = `post-${i}`;
      slugs.push(slug);
      articles.push({
        id: newId('art'), workspaceId: ws.id, title: `Post number ${i}`, slug, contentType: CONTENT_TYPE_NAMES[i % 5], bodyMarkdown: v.markdown,
        metaTitle: null, metaDescription: `About post ${i}`, focusKeyword: `topic ${i % 200}`, secondaryKeywords: [`topic ${(i * 7) % 200}`, `theme ${i % 50}`],
        featuredImageUrl: null, imageAlt: null, author: 'Bench', targetLength: words, seoScore: null, status: 'published', scheduledAt: null, createdAt: at, updatedAt: at,
        importedPublishedAt: null, importedUpdatedAt: null, firstPublishedAt: at, revision: 0, publishedRevision: 0, auditedRevision: null, publishError: null,
      });
      pubs.push({ articleId: articles[articles.length - 1].id, connectorId, workspaceId: ws.id, firstPublishedAt: at, updatedAt: at, publishedUrl: null, lastError: null, lastErrorAt: null });
    }
    articles.forEach((a, j) => {
      if (bodyOf) a.bodyMarkdown = bodyOf(from + j);
      markdownBytes += Buffer.byteLength(a.bodyMarkdown);
    });
    const snaps = articles.map((a, j) => packSnapshot(buildSnapshot(ws, a, pubs[j], bodyOf ? renderBody(a.bodyMarkdown) : rendered.get((from + j) % 8)!.r)));
    await withTransaction(app.db, async (trx) => {
      for (let i = 0; i < articles.length; i += 40) await trx('articles').insert(articles.slice(i, i + 40).map(toRow));
      for (let i = 0; i < pubs.length; i += 100) {
        await trx('publications').insert(pubs.slice(i, i + 100).map((p) => ({ article_id: p.articleId, connector_id: p.connectorId, workspace_id: p.workspaceId, first_published_at: p.firstPublishedAt, updated_at: p.updatedAt })));
      }
      await touchState(trx, ws.id, new Date().toISOString());
      await insertRun(trx, ws.id, snaps);
      await bumpContentVersion(trx, ws.id);
    });
  }
  return { ws: await getWorkspace(app, ws.id), key, slugs, markdownBytes };
}

const ARCHIVE_WORDS = ('garden soil compost pruning tools water light seeds roots harvest season shade mulch bed spade rake hose plant grow leaf ' +
  'tomato pepper bean squash onion garlic herb basil mint thyme frost spring summer autumn winter clay sand loam worm beetle aphid').split(' ');
const TAGS = Array.from({ length: 300 }, (_, i) => `${ARCHIVE_WORDS[i % ARCHIVE_WORDS.length]} ${ARCHIVE_WORDS[(i * 7 + 3) % ARCHIVE_WORDS.length]} ${i}`);

/** A deterministic pseudo-random sequence (the same archive on every run). */
function numbers(seed: number): () => number {
  // 32-bit products: in doubles they pass 2^53 and lose the low bits, and one post in two or three repeated another's body.
  let x = (Math.imul(seed, 2654435761) + 1) >>> 0;
  return () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return x / 2 ** 32;
  };
}

/**
 * Article `i` of the generated archive: ~400 words of markdown in 3-5 sections, each with a
 * heading, two paragraphs with some emphasis and a link, 2-4 tags, a date in the past.
 */
export function archivePost(i: number): string {
  const r = numbers(i + 1);
  const word = () => ARCHIVE_WORDS[Math.floor(r() * ARCHIVE_WORDS.length)];
  const sentence = (n: number) => {
    const w = Array.from({ length: n }, word);
    w[0] = w[0][0].toUpperCase() + w[0].slice(1);
    if (r() < 0.3) w[2] = `**${w[2]}**`;
    if (r() < 0.2 && n > 4) w[4] = `[${w[4]}](https://example.com/${w[4]})`;
    return `${w.join(' ')}.`;
  };
  const sections = 3 + Math.floor(r() * 3);
  const perSection = Math.round(400 / sections);
  const parts: string[] = [];
  for (let s = 0; s < sections; s++) {
    parts.push(`## ${sentence(4).slice(0, -1)} ${s + 1}`);
    let words = 0;
    const para: string[] = [];
    while (words < perSection) {
      const n = 8 + Math.floor(r() * 10);
      para.push(sentence(n));
      words += n;
      if (para.length === 4) {
        parts.push(para.join(' '));
        para.length = 0;
      }
    }
    if (para.length) parts.push(para.join(' '));
  }
  const tags = Array.from({ length: 2 + Math.floor(r() * 3) }, () => TAGS[Math.floor(r() * TAGS.length)]);
  const date = new Date(Date.UTC(2015, 0, 1) + i * 3_600_000).toISOString();
  return `---\ntitle: "${sentence(6).slice(0, -1)} ${i}"\nslug: post-${i}\ndate: ${date}\ntags: [${[...new Set(tags)].map((t) => `"${t}"`).join(', ')}]\n---\n\n${parts.join('\n\n')}\n`;
}

/** Write `count` generated posts as markdown files under `dir` (in folders of 1,000); returns the folder. */
export function writeArchive(dir: string, count: number): string {
  const root = path.join(dir, 'archive');
  for (let i = 0; i < count; i++) {
    const folder = path.join(root, String(Math.floor(i / 1000)).padStart(3, '0'));
    if (i % 1000 === 0) mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, `post-${i}.md`), archivePost(i));
  }
  return root;
}
