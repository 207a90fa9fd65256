import { describe, expect, it } from 'vitest';
import { regenerateBlogKey } from '../../src/auth/blog-keys.js';
import { runCli } from '../helpers/cli.js';
import { contentFixture } from './fixture.js';

const INVALID = { error: { code: 'invalid_key', message: 'Invalid blog key' } };

describe('content API authentication', () => {
  it('accepts the key as Bearer header, X-Api-Key header and ?key= query', async () => {
    const f = await contentFixture();
    await f.publish();
    expect((await f.api('/articles')).status).toBe(200);
    expect((await f.api('/articles', { key: null, headers: { 'X-Api-Key': f.key } })).status).toBe(200);
    expect((await f.api(`/articles?key=${f.key}`, { key: null })).status).toBe(200);
  });

  it('refuses a missing, wrong or malformed key with 401 Invalid blog key', async () => {
    const f = await contentFixture();
    const attempts: Array<RequestInit & { key?: string | null }> = [
      { key: null },
      { key: 'svc_blog_wrongwrongwrong' },
      { key: 'not-even-a-prefix' },
      { key: null, headers: { Authorization: 'Basic abc' } },
      { key: null, headers: { 'X-Api-Key': '' } },
    ];
    for (const init of attempts) {
      const res = await f.api('/articles', init);
      expect(res.status).toBe(401);
      // The spec's code and message; a request with no key at all is told so in the details (issue 24).
      const sent = typeof init.key === 'string';
      expect(await res.json()).toEqual(sent ? INVALID : { error: { ...INVALID.error, keySent: false, detail: expect.stringContaining('No key was sent') } });
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
    }
  });

  it('refuses the old key at once after a regenerate in this process', async () => {
    const f = await contentFixture();
    expect((await f.api('/articles')).status).toBe(200);
    const { key } = await regenerateBlogKey(f.d.app, f.ws);
    expect(key).toMatch(/^svc_blog_[0-9A-Za-z]{32}$/);
    const old = await f.api('/articles');
    expect(old.status).toBe(401);
    expect(await old.json()).toEqual(INVALID);
    expect((await f.api('/articles', { key })).status).toBe(200);
  });

  it('refuses the old key at once after svc blog-key regenerate ran in another App (the CLI)', async () => {
    const f = await contentFixture();
    expect((await f.api('/categories')).status).toBe(200);
    const r = await runCli(['blog-key', 'regenerate', '--workspace', f.ws.name, '--yes', '--json'], f.cli);
    expect(r.code, r.stderr).toBe(0);
    const { key } = r.json();
    expect(key).toMatch(/^svc_blog_/);
    expect((await f.api('/categories')).status).toBe(401);
    expect((await f.api('/categories', { key })).status).toBe(200);
    const revoked = await runCli(['blog-key', 'revoke', '--workspace', f.ws.name, '--yes'], f.cli);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect((await f.api('/categories', { key })).status).toBe(401);
  });

  it('limits each key per minute: 429 rate_limited with retryAfterSeconds and Retry-After', async () => {
    const f = await contentFixture({ overrides: { 'content.rateLimitPerMinute': 5 } });
    for (let i = 0; i < 5; i++) expect((await f.api('/tags')).status).toBe(200);
    const res = await f.api('/tags');
    expect(res.status).toBe(429);
    const body = await res.json();
    expect(body.error).toMatchObject({ code: 'rate_limited', retryAfterSeconds: expect.any(Number) });
    // The key's minute (a window started by its first request) ends within 60 s.
    expect(body.error.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(body.error.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(res.headers.get('retry-after')).toBe(String(body.error.retryAfterSeconds));
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    // Another key is not affected; a wrong key still gets 401, not 429.
    expect((await f.api('/tags', { key: 'svc_blog_other' })).status).toBe(401);
  });
});

describe('CORS', () => {
  it('answers a preflight allowing Authorization and X-Api-Key from any origin', async () => {
    const f = await contentFixture();
    const res = await fetch(`${f.base}/articles`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://blog.example.com', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'authorization, x-api-key' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')).toContain('GET');
    const allowed = res.headers.get('access-control-allow-headers')!.toLowerCase();
    expect(allowed).toContain('authorization');
    expect(allowed).toContain('x-api-key');
  });

  it('puts CORS headers on successes, errors and 304s', async () => {
    const f = await contentFixture();
    const ok = await f.api('/sitemap', { headers: { Origin: 'https://blog.example.com' } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe('*');
    expect(ok.headers.get('access-control-expose-headers')).toContain('ETag');
    const notModified = await f.api('/sitemap', { headers: { Origin: 'https://x.example', 'If-None-Match': ok.headers.get('etag')! } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('access-control-allow-origin')).toBe('*');
    for (const res of [await f.api('/articles/nope'), await f.api('/articles?limit=0'), await f.api('/sitemap', { key: 'bad' })]) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
    }
  });
});

describe('wrong keys', () => {
  it('looks a wrong key up by its hash, one indexed read each; a key made by another process works at once', async () => {
    const f = await contentFixture({ jobs: false });
    const lookups: string[] = [];
    f.d.app.db.on('query', (q: { sql: string }) => {
      if (/blog_keys/.test(q.sql) && /key_hash/.test(q.sql)) lookups.push(q.sql);
    });
    const wrong = 'svc_blog_' + 'x'.repeat(32);
    for (let i = 0; i < 5; i++) expect((await f.api('/tags', { key: wrong })).status).toBe(401);
    expect(lookups).toHaveLength(5);
    expect(lookups.every((sql) => /where [`"]?key_hash[`"]? = /i.test(sql)), lookups[0]).toBe(true);

    // Another App (the CLI) makes a workspace and a key: usable on the very next request.
    const added = await runCli(['workspaces', 'add', '--name', 'second.example', '--website', 'https://second.example'], f.cli);
    expect(added.code).toBe(0);
    const gen = await runCli(['blog-key', 'generate', '-w', 'second.example', '--json'], f.cli);
    expect(gen.code).toBe(0);
    expect((await f.api('/tags', { key: gen.json().key })).status).toBe(200);
    // And the wrong key is still wrong after the change.
    expect((await f.api('/tags', { key: wrong })).status).toBe(401);
  });
});
