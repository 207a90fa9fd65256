import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { seedArticle } from '../helpers/seed.js';
import { expectCleanError } from '../cli/sandbox.js';
import { connect, workspaceWithAdmin } from '../mcp/helpers.js';
import { GIF_1X1, png } from './png.js';
import { PG_URL } from '../helpers/env.js';
import { removeImage } from '../../src/images/service.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('the image store: svc images, /media/<hash>.<ext>', () => {
  it('svc images add prints each URL; the URL serves the bytes with a year of immutable caching, a strong ETag, 304, HEAD, nosniff; adding again stores nothing', async () => {
    const { d } = await workspaceWithAdmin();
    const image = png(3, 2);
    writeFileSync(path.join(d.dir, 'photo.jpg'), image); // a PNG named .jpg: the bytes decide
    writeFileSync(path.join(d.dir, 'dot.gif'), GIF_1X1);
    const cli = (args: string[]) => runCli(args, { env: { ...d.env, SVC_SERVER_BASE_URL: d.url }, cwd: d.dir });
    const added = await cli(['images', 'add', 'photo.jpg', 'dot.gif']);
    expect(added.code, added.stderr).toBe(0);
    const url = `${d.url}/media/${sha(image)}.png`;
    expect(added.stdout).toBe(`${url}\n${d.url}/media/${sha(GIF_1X1)}.gif\n`);

    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(image)).toBe(true);
    expect(Object.fromEntries(['content-type', 'cache-control', 'etag', 'x-content-type-options', 'content-length'].map((h) => [h, res.headers.get(h)]))).toEqual({
      'content-type': 'image/png',
      'cache-control': 'public, max-age=31536000, immutable',
      etag: `"${sha(image)}"`,
      'x-content-type-options': 'nosniff',
      'content-length': String(image.length),
    });
    const again = await fetch(url, { headers: { 'If-None-Match': `"${sha(image)}"` } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect((await fetch(url, { headers: { 'If-None-Match': '"other"' } })).status).toBe(200);
    const head = await fetch(url, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-length'), head.headers.get('content-type')]).toEqual([200, String(image.length), 'image/png']);

    for (const unknown of [`/media/${sha(Buffer.from('x'))}.png`, `/media/${sha(image)}.gif`, '/media/nothing.png', `/media/${sha(image)}`]) {
      const r = await fetch(d.url + unknown);
      expect(r.status, unknown).toBe(404);
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe('not_found');
    }

    const twice = await cli(['images', 'add', 'photo.jpg', '--json']);
    expect(twice.json().images).toEqual([expect.objectContaining({ url, added: false, contentType: 'image/png', width: 3, height: 2, size: image.length })]);
    const list = await cli(['images', 'list', '--json']);
    expect(list.json()).toMatchObject({ total: 2 });
    expect(list.json().images.map((i: { url: string }) => i.url).sort()).toEqual([url, `${d.url}/media/${sha(GIF_1X1)}.gif`].sort());
  });

  it('refuses by name an image over images.maxBytes, bytes that are no image, and an image cut short; nothing is stored', async () => {
    const { d } = await workspaceWithAdmin({ overrides: { 'images.maxBytes': 2048 } });
    const large = Buffer.concat([png(4, 4, 1).subarray(0, -12), Buffer.alloc(3000), png(4, 4, 1).subarray(-12)]); // bytes between IDAT and IEND
    expect(large.length).toBeGreaterThan(2048);
    writeFileSync(path.join(d.dir, 'large.png'), large);
    writeFileSync(path.join(d.dir, 'notes.png'), 'just some text, not an image\n');
    writeFileSync(path.join(d.dir, 'cut.png'), png(8, 8).subarray(0, 40));
    writeFileSync(path.join(d.dir, 'page.svg'), '<svg xmlns="http://www.w3.org/2000/svg"><rect width="1" height="1"/>');
    const cli = (args: string[]) => runCli(args, { env: { ...d.env, SVC_SERVER_BASE_URL: d.url, SVC_IMAGES_MAX_BYTES: '2048' }, cwd: d.dir });
    expectCleanError(await cli(['images', 'add', 'large.png']), 1, `large.png is ${(large.length / 1024).toFixed(1)} KB (${large.length} bytes); svc stores images of at most 2.0 KB (2048 bytes)`);
    expect((await cli(['images', 'add', 'large.png', '--json'])).json().error).toMatchObject({ code: 'image_too_large', size: large.length, max: 2048 });
    expect((await cli(['images', 'add', 'notes.png', '--json'])).json().error.code).toBe('image_type_unsupported');
    expect((await cli(['images', 'add', 'cut.png', '--json'])).json().error.code).toBe('image_truncated');
    expectCleanError(await cli(['images', 'add', 'notes.png']), 1, 'notes.png is not an image svc stores: its bytes are not JPEG, PNG, GIF, WebP, AVIF or SVG');
    expectCleanError(await cli(['images', 'add', 'cut.png']), 1, 'cut.png is a PNG cut short (no IEND chunk at its end)');
    expectCleanError(await cli(['images', 'add', 'page.svg']), 1, 'page.svg is an SVG cut short (no closing </svg> at its end)');
    expect((await cli(['images', 'list', '--json'])).json().total).toBe(0);
  });

  it('an SVG is served with a CSP that keeps it inert when opened on its own', async () => {
    const { d } = await workspaceWithAdmin();
    const svg = Buffer.from('<?xml version="1.0"?>\n<!-- a drawing -->\n<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><script>alert(1)</script><rect width="4" height="4"/></svg>\n');
    writeFileSync(path.join(d.dir, 'x.svg'), svg);
    const added = await runCli(['images', 'add', 'x.svg'], { env: { ...d.env, SVC_SERVER_BASE_URL: d.url }, cwd: d.dir });
    expect(added.code, added.stderr).toBe(0);
    const res = await fetch(added.stdout.trim());
    expect([res.status, res.headers.get('content-type'), res.headers.get('content-security-policy')]).toEqual([200, 'image/svg+xml', "default-src 'none'; style-src 'unsafe-inline'; sandbox"]);
  });

  it('svc images remove asks, names the articles that use the image, and the URL then answers 404', async () => {
    const { d, ws } = await workspaceWithAdmin();
    writeFileSync(path.join(d.dir, 'a.png'), png(2, 2, 5));
    const cli = (args: string[]) => runCli(args, { env: { ...d.env, SVC_SERVER_BASE_URL: d.url }, cwd: d.dir });
    const url = (await cli(['images', 'add', 'a.png'])).stdout.trim();
    await seedArticle(d.app, ws, { title: 'Uses it', bodyMarkdown: `![a](${url})` });
    expectCleanError(await cli(['images', 'remove', url]), 2, '--yes');
    const removed = await cli(['images', 'remove', url, '--yes']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toContain('used by 1 article: uses-it');
    expect((await fetch(url)).status).toBe(404);
    expectCleanError(await cli(['images', 'remove', url, '--yes']), 1, 'not found');
  });

  it('upload_image (MCP, scope content) stores base64 bytes and returns the URL, usable as featuredImageUrl; bad bytes are tool errors by name', async () => {
    const { d, key } = await workspaceWithAdmin();
    const agent = await connect(d, await key(['read', 'content']));
    const tools = await agent.listTools();
    const tool = tools.tools.find((t) => t.name === 'upload_image')!;
    expect(tool.inputSchema.properties!.data).toMatchObject({ type: 'string', maxLength: 4 * 1024 * 1024 });
    expect(tool.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    const image = png(5, 4, 9);
    const up = await agent.call('upload_image', { data: image.toString('base64'), filename: 'chart.png' });
    expect(up.isError, up.text).toBeFalsy();
    const url = `${d.url}/media/${sha(image)}.png`;
    expect(up.structuredContent).toEqual({ url, hash: sha(image), contentType: 'image/png', size: image.length, width: 5, height: 4, added: true });
    expect(Buffer.from(await (await fetch(url)).arrayBuffer()).equals(image)).toBe(true);
    const created = await agent.call('create_article', { title: 'With a picture', bodyMarkdown: `Hello.\n\n![chart](${url})`, featuredImageUrl: url });
    expect(created.isError, created.text).toBeFalsy();
    expect((await agent.call('upload_image', { data: image.toString('base64') })).structuredContent).toMatchObject({ url, added: false });

    const refused = async (args: Record<string, unknown>) => {
      const r = await agent.call('upload_image', args);
      expect(r.isError, r.text).toBe(true);
      return r.text;
    };
    expect(await refused({ data: Buffer.from('hello').toString('base64') })).toMatch(/^The image is not an image svc stores/);
    expect(await refused({ data: png(4, 4).subarray(0, 30).toString('base64') })).toMatch(/cut short/);
    expect(await refused({ data: 'not base64!' })).toMatch(/base64/);
    expect(await refused({ data: 'A'.repeat(4 * 1024 * 1024 + 4) })).toMatch(/data/);
    // Refused for its size alone: the base64 pattern never reads text past the limit.
    expect(await refused({ data: '!'.repeat(4 * 1024 * 1024 + 4) })).toBe('Invalid image upload: data: must be at most 4194304 characters');
    const readOnly = await connect(d, await key(['read']));
    expect((await readOnly.call('upload_image', { data: image.toString('base64') })).isError).toBe(true);
  });
});

describe('the image store is bounded per workspace (images.workspaceMaxBytes)', () => {
  it('upload_image past the workspace total is refused by name and stores nothing; the same bytes again still answer, and removing makes room', async () => {
    const first = png(4, 4, 1);
    const second = png(4, 4, 2);
    const third = png(4, 4, 3);
    // Room for two of them, not three.
    const { d, ws, key } = await workspaceWithAdmin({ overrides: { 'images.workspaceMaxBytes': first.length + second.length + third.length - 1 } });
    const agent = await connect(d, await key(['read', 'content']));
    for (const image of [first, second]) {
      const up = await agent.call('upload_image', { data: image.toString('base64') });
      expect(up.isError, up.text).toBeFalsy();
    }
    const refused = await agent.call('upload_image', { data: third.toString('base64'), filename: 'three.png' });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/^The image three\.png \(.*\) does not fit: the workspace's images already take .* of the .* it may hold/);
    expect((await fetch(`${d.url}/media/${sha(third)}.png`)).status).toBe(404);
    expect((await agent.call('upload_image', { data: first.toString('base64') })).structuredContent).toMatchObject({ added: false });
    await removeImage(d.app, ws, sha(first));
    const after = await agent.call('upload_image', { data: third.toString('base64') });
    expect(after.isError, after.text).toBeFalsy();
  });
});

describe(`the workspace bound holds under concurrent uploads (${PG_URL ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('uploads at once, with room for one: one is stored, the others refused as image_store_full, none fails otherwise', async () => {
    const images = Array.from({ length: 8 }, (_, i) => png(4, 4, 10 + i));
    const { d, ws, key } = await workspaceWithAdmin({ overrides: { 'images.workspaceMaxBytes': Math.max(...images.map((b) => b.length)) } });
    const agents = await Promise.all(images.map(async () => connect(d, await key(['read', 'content']))));
    const results = await Promise.all(images.map((image, i) => agents[i].call('upload_image', { data: image.toString('base64') })));
    expect(results.filter((r) => !r.isError)).toHaveLength(1);
    for (const r of results.filter((r) => r.isError)) expect(r.text).toMatch(/does not fit: the workspace's images already take/);
    expect(Number((await d.app.db('images').where({ workspace_id: ws.id }).count({ n: '*' }).first())!.n)).toBe(1);
  });
});
