import { execFile } from 'node:child_process';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { contentFixture } from '../content-api/fixture.js';
import { tempDir } from '../helpers/env.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const PACKAGE = path.join(ROOT, 'packages/content-client');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');

/**
 * Code a headless-blog template writes (the calls of the official Next.js template, written
 * anew): constructed with the key alone, the base URL from SVC_URL, the fields its pages read
 * given the types the pages expect. No DOM or Node types: the package must bring its own.
 */
const TEMPLATE_CODE = `
import { BlogClient, ContentApiError, type Blog } from 'svc-content-client';

declare const key: string;
const client = new BlogClient(key);

export async function page(pageNumber: number): Promise<number> {
  const { total, articles } = await client.getArticles(pageNumber, 10);
  const first: Blog.IArticleIndex | undefined = articles[0];
  const headline: string = first ? first.headline : '';
  const image: string = first ? first.image : '';
  const category: string | undefined = first?.category?.slug;
  return Math.ceil(total / 10) + headline.length + image.length + (category ?? '').length;
}

export async function post(slug: string): Promise<string[]> {
  const post = await client.getArticle(slug);
  if (!post) return [];
  const images: string[] = [post.image];
  const dates: string = post.publishedAt || post.createdAt;
  return [post.headline, post.metaDescription, post.html, dates, post.category.title, ...images, ...post.tags.map((t) => t.slug), ...post.relatedPosts.map((p) => p.headline)];
}

export async function lists(slug: string): Promise<number> {
  const a = await client.getCategoryArticles(slug, 0, 10);
  const b = await client.getTagArticles(slug, 0);
  const c = await client.search('tea');
  const sitemap = await client.getSitemap();
  return a.total + b.total + c.total + sitemap.articles.length + sitemap.categories.length;
}

export const isApiError = (e: unknown): boolean => e instanceof ContentApiError && e.code === 'rate_limited';
`;

/** moduleResolution -> the module setting it goes with (TypeScript requires the pairs for node16). */
const RESOLUTIONS: Array<[string, string]> = [
  ['node10', 'commonjs'],
  ['node16', 'node16'],
  ['bundler', 'esnext'],
];

describe('the svc-content-client package as a blog site installs it', () => {
  let site: string;
  beforeAll(async () => {
    await run(process.execPath, [path.join(PACKAGE, 'build.mjs')]);
    // A site with the package in its node_modules, as npm would place it.
    site = tempDir('svc-site-');
    await mkdir(path.join(site, 'node_modules'));
    await symlink(PACKAGE, path.join(site, 'node_modules/svc-content-client'), 'dir');
  }, 60_000);

  it('has no runtime dependencies and ships only dist/, the README and package.json', async () => {
    const pkg = JSON.parse(await readFile(path.join(PACKAGE, 'package.json'), 'utf8'));
    expect(pkg.name).toBe('svc-content-client');
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(pkg.peerDependencies ?? {}).toEqual({});
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: PACKAGE });
    const files = (JSON.parse(stdout)[0].files as Array<{ path: string }>).map((f) => f.path).sort();
    expect(files.filter((f) => !f.startsWith('dist/'))).toEqual(['README.md', 'package.json']);
    expect(files).toEqual(expect.arrayContaining(['dist/esm/index.js', 'dist/esm/index.d.ts', 'dist/cjs/index.js', 'dist/cjs/index.d.ts']));
  });

  it('works from ES modules and from CommonJS against the daemon', async () => {
    const f = await contentFixture();
    const a = await f.publish({ title: 'Packaged', slug: 'crème-brûlée' });
    const script = (load: string) =>
      `${load}\nconst c = new BlogClient(process.env.KEY, { baseUrl: process.env.BASE });\nc.getArticle(encodeURIComponent('crème-brûlée')).then((x) => console.log(JSON.stringify({ id: x.id, name: BlogClient.name })));`;
    await writeFile(path.join(site, 'esm.mjs'), script("import { BlogClient } from 'svc-content-client';"));
    await writeFile(path.join(site, 'cjs.cjs'), script("const { BlogClient } = require('svc-content-client');"));
    for (const file of ['esm.mjs', 'cjs.cjs']) {
      const { stdout } = await run(process.execPath, [path.join(site, file)], { env: { PATH: process.env.PATH, KEY: f.key, BASE: f.d.url } });
      expect(JSON.parse(stdout), file).toEqual({ id: a.id, name: 'BlogClient' });
    }
  });

  it.each(RESOLUTIONS)('types resolve and template code compiles under moduleResolution %s', async (resolution, module) => {
    const dir = path.join(site, resolution);
    await mkdir(dir, { recursive: true });
    await symlink(path.join(site, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    await writeFile(path.join(dir, 'blog.ts'), TEMPLATE_CODE);
    await writeFile(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'ES2020', lib: ['ES2020'], types: [], module, moduleResolution: resolution, skipLibCheck: false }, files: ['blog.ts'] }),
    );
    const result = await run(process.execPath, [TSC, '-p', dir]).catch((e) => e);
    expect(`${result.stdout ?? ''}${result.stderr ?? ''}`).toBe('');
  }, 60_000);
});
