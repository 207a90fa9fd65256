import { describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/api-keys.js';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { runCli, spawnCli } from '../helpers/cli.js';
import { startDaemonOn } from '../helpers/daemon.js';
import { createPgDatabase, tempDir } from '../helpers/env.js';
import { seedArticle, seedUser, seedWorkspace } from '../helpers/seed.js';
import { connect } from '../mcp/helpers.js';
import { approve, callTool, exchange, registerClient, sessionFor } from '../oauth/flow.js';
import { PG_ADMIN, pgAvailable } from './pg.js';

// The source is a SQLite installation whatever engine the suite runs on; the target a new
// PostgreSQL database on the suite's server (or the local one).
const sqliteEnv = (dir: string) => ({ SVC_DATA_DIR: dir, SVC_LOG_LEVEL: 'silent', SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true' });
const content = async (url: string, key: string, path: string) => {
  const res = await fetch(`${url}/api/v1/content${path}`, { headers: { Authorization: `Bearer ${key}` } });
  return { status: res.status, body: await res.json() };
};
const webhookOf = async (env: Record<string, string>, cwd: string) => {
  const r = await runCli(['webhook', 'show', '--show-secret', '--json'], { env, cwd });
  expect(r.code, r.stderr).toBe(0);
  const { url, enabled, secret, events } = r.json();
  return { url, enabled, secret, events };
};

describe.runIf(await pgAvailable())('svc db copy --to postgres://', () => {
  it('copies a SQLite installation that a daemon serves into PostgreSQL: a daemon on the copy serves the same articles with the same blog key, API key, OAuth token and webhook', async () => {
    const dir = tempDir();
    const env = sqliteEnv(dir);
    const src = await startDaemonOn(env, dir, {}, false);
    const ws = await seedWorkspace(src.app);
    const admin = await seedUser(src.app, ws, 'admin');
    const { key: blogKey } = await generateBlogKey(src.app, ws);
    const { key: apiKey } = await createApiKey(src.app, { workspaceId: ws.id, userId: admin.id, name: 'agent', scopes: ['read', 'content', 'publish'] });
    const hook = await runCli(['webhook', 'set', '--url', 'http://127.0.0.1:9/hooks/svc', '--generate-secret'], { env, cwd: dir });
    expect(hook.code, hook.stderr).toBe(0);
    for (const title of ['Cold brew at home', 'Pour-over in five steps', 'Crème brûlée, le café']) {
      const a = await seedArticle(src.app, ws, { title, secondaryKeywords: ['coffee'] });
      await publishArticle(src.app, ws, a.id);
    }
    await seedArticle(src.app, ws, { title: 'A draft stays a draft' });
    const client = await registerClient(src);
    const oauth = await exchange(src, client.client_id, await approve(src, await sessionFor(src, admin.id), client, { workspaceId: ws.id }));

    const to = await createPgDatabase(PG_ADMIN);
    const copy = await runCli(['db', 'copy', '--to', to, '--json'], { env, cwd: dir });
    expect(copy.code, copy.stderr).toBe(0);
    const result = copy.json<{ tables: Array<{ table: string; rows: number }>; rows: number }>();
    const rows = Object.fromEntries(result.tables.map((t) => [t.table, t.rows]));
    expect(rows).toMatchObject({ workspaces: 1, articles: 4, content_articles: 3, blog_keys: 1, api_keys: 1, oauth_clients: 1, oauth_connections: 1, webhook_events: 3 });
    expect(result.tables.map((t) => t.table).indexOf('workspaces')).toBeLessThan(result.tables.map((t) => t.table).indexOf('articles'));

    const pgDir = tempDir();
    const pgEnv = { ...sqliteEnv(pgDir), SVC_DATABASE_URL: to };
    const dst = await startDaemonOn(pgEnv, pgDir, {}, false);
    for (const path of ['/articles?limit=100', `/articles/cold-brew-at-home`, '/categories', '/tags', '/sitemap', '/articles?q=cold%20brew']) {
      expect(await content(dst.url, blogKey, path)).toEqual(await content(src.url, blogKey, path));
    }
    expect((await content(dst.url, blogKey, '/articles')).body.data.total).toBe(3);
    expect((await content(dst.url, blogKey, '/articles?q=cold%20brew')).body.data.total).toBeGreaterThan(0); // the search index is rebuilt on the copy
    const [before, after] = [await connect(src, apiKey), await connect(dst, apiKey)];
    const listed = await after.call('list_articles');
    expect(listed.isError).toBeFalsy();
    expect(listed.text).toBe((await before.call('list_articles')).text);
    const viaOauth = await callTool(dst, oauth.access_token, 'list_articles');
    expect(viaOauth.status).toBe(200);
    expect(await viaOauth.text()).not.toMatch(/"isError":true/);
    // The SQLite file is marked as moved (moved.test.ts): reading it again takes the override.
    expect(await webhookOf(pgEnv, pgDir)).toEqual(await webhookOf({ ...env, SVC_DATABASE_IGNORE_MOVED: 'true' }, dir));

    // The copy is a working database: a new publish numbers its webhook event after the copied ones.
    const more = await seedArticle(dst.app, ws, { title: 'Written on PostgreSQL' });
    await publishArticle(dst.app, ws, more.id);
    expect((await content(dst.url, blogKey, '/articles')).body.data.total).toBe(4);
    expect((await webhookOf(pgEnv, pgDir)).events.pending).toBe(4);

    // A second copy into it is refused, naming what is there; --force replaces it.
    const again = await runCli(['db', 'copy', '--to', to], { env, cwd: dir });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^error: The PostgreSQL database already holds svc data \(users: 1 rows, workspaces: 1 rows, api_keys: 1 rows, articles: 5 rows, \.\.\.\); nothing was copied\nhint: Copy into a new, empty database \(createdb svc\), or pass --force to replace the svc data in this one\.\n$/);
    expect((await content(dst.url, blogKey, '/articles')).body.data.total).toBe(4);
    // --force replaces data: without a terminal it needs --yes, and nothing changed meanwhile.
    const unconfirmed = await runCli(['db', 'copy', '--to', to, '--force'], { env, cwd: dir });
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toMatch(/^error: Empty every svc table in postgres:\/\/.* and replace it with the data of .*svc\.sqlite\? The svc data the target holds now is lost\. Refusing without --yes/);
    expect((await content(dst.url, blogKey, '/articles')).body.data.total).toBe(4);
    // At a terminal a progress bar counts the rows on stderr.
    const forced = await runCli(['db', 'copy', '--to', to, '--force', '--yes'], { env, cwd: dir, interactive: true });
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toMatch(/^\rcopying rows \[ {30}\] 0\/(?<n>\d+).*\rcopying rows \[#{30}\] \k<n>\/\k<n>\n$/s);
    expect(forced.stdout).toMatch(/Copied \d+ rows in \d+ tables from .*svc\.sqlite to postgres:\/\/.* in [\d.]+ m?s; every table's row count matches\./);
    expect((await content(dst.url, blogKey, '/articles')).body.data.total).toBe(3);
  }, 120_000);

  it('two copies into one empty database at once: one copies, the other is refused and nothing is doubled', async () => {
    const dir = tempDir();
    const env = sqliteEnv(dir);
    expect((await runCli(['workspaces', 'add', '--name', 'race.example', '--website', 'https://race.example'], { env, cwd: dir })).code).toBe(0);
    const to = await createPgDatabase(PG_ADMIN);
    const both = await Promise.all([spawnCli(['db', 'copy', '--to', to, '--json'], { env, cwd: dir }), spawnCli(['db', 'copy', '--to', to, '--json'], { env, cwd: dir })]);
    expect(both.map((r) => r.code).sort(), both.map((r) => r.stderr).join('\n')).toEqual([0, 1]);
    expect(both.find((r) => r.code === 1)!.json().error.code, both.map((r) => r.stderr).join('\n')).toBe('target_not_empty');
    const pgDir = tempDir();
    const listed = await runCli(['workspaces', 'list', '--json'], { env: { ...sqliteEnv(pgDir), SVC_DATABASE_URL: to }, cwd: pgDir });
    expect(listed.json<Array<{ name: string }>>().map((w) => w.name)).toEqual(['race.example']);
  }, 60_000);

  it('refuses a target that is not a postgres:// URL, an unreachable server, and a PostgreSQL source', async () => {
    const dir = tempDir();
    const env = sqliteEnv(dir);
    expect((await runCli(['workspaces', 'add', '--name', 'x.example', '--website', 'https://x.example'], { env, cwd: dir })).code).toBe(0);
    const notPg = await runCli(['db', 'copy', '--to', 'mysql://root@127.0.0.1/svc'], { env, cwd: dir });
    expect({ code: notPg.code, stderr: notPg.stderr }).toEqual({ code: 2, stderr: 'error: --to takes a postgres:// URL, not "mysql://root@127.0.0.1/svc"\n' });
    const down = await runCli(['db', 'copy', '--to', 'postgres://postgres:secret@127.0.0.1:1/svc'], { env, cwd: dir });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/^error: Cannot reach the database postgres:\/\/postgres@127\.0\.0\.1:1\/svc: it refused the connection \(refused\)\nhint: database driver: connect ECONNREFUSED/);
    expect(down.stderr).not.toContain('secret');
    const fromPg = await runCli(['db', 'copy', '--to', PG_ADMIN], { env: { ...env, SVC_DATABASE_URL: PG_ADMIN }, cwd: dir });
    expect(fromPg.code).toBe(2);
    expect(fromPg.stderr).toMatch(/^error: svc db copy copies a SQLite installation; this one already uses PostgreSQL/);
  }, 60_000);
});
