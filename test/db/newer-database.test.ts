import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { openDb } from '../../src/db/connect.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { runCli, spawnCli } from '../helpers/cli.js';
import { startDaemon } from '../helpers/daemon.js';
import { seedArticle, seedWorkspace } from '../helpers/seed.js';

const NAMES = readdirSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations'))
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
  .map((f) => f.replace(/\.ts$/, ''))
  .sort();
const FUTURE = '2099-01-01-0000-add-future-notes';

describe('a database migrated by a newer svc (rolling upgrade)', () => {
  it('daemons already running keep serving; a new start, CLI commands and migrate refuse, naming the unknown migration; --status lists it', async () => {
    // Version N serves...
    const d = await startDaemon({ jobs: false });
    const ws = await seedWorkspace(d.app);
    const { key } = await generateBlogKey(d.app, ws);

    // ...while version N+1 migrates the same database, forward-compatibly (a new table and a
    // nullable column), recorded the way knex records it.
    const db = openDb(d.config.database);
    try {
      await db.schema.createTable('future_notes', (t) => t.string('id').primary());
      await db.schema.alterTable('articles', (t) => t.text('future_note').nullable());
      await db('knex_migrations').insert({ name: FUTURE, batch: 99, migration_time: new Date() });
    } finally {
      await db.destroy();
    }

    // N keeps working: it writes, publishes and serves.
    const article = await seedArticle(d.app, ws, { title: 'Written after N+1 migrated' });
    await publishArticle(d.app, ws, article.id);
    const res = await fetch(`${d.url}/api/v1/content/articles/${article.slug}`, { headers: { Authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect((await fetch(`${d.url}/healthz`)).status).toBe(200);

    // A process of version N that starts now refuses, whatever the command.
    const message =
      `error: This database was migrated by a newer version of svc: it has a migration this svc does not know (${FUTURE})\n` +
      'hint: Upgrade svc here to the version that applied it, or a newer one. Daemons of this version that are already running keep working; see "Rolling upgrades" in the README.\n';
    const serve = await spawnCli(['serve'], { env: { ...d.env, SVC_PORT: '0' }, cwd: d.dir });
    expect({ code: serve.code, stderr: serve.stderr, stdout: serve.stdout }).toEqual({ code: 1, stderr: message, stdout: '' });
    for (const args of [['workspaces', 'list'], ['migrate'], ['migrate', '--rollback']]) {
      const r = await runCli(args, { env: d.env, cwd: d.dir });
      expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 1, stderr: message });
    }
    const json = await runCli(['migrate', '--json'], { env: d.env, cwd: d.dir });
    expect(json.json()).toEqual({ error: { code: 'database_newer', message: expect.stringContaining(FUTURE), unknown: [FUTURE] } });

    const status = await runCli(['migrate', '--status', '--json'], { env: d.env, cwd: d.dir });
    expect(status.json()).toEqual({ applied: NAMES, pending: [], unknown: [FUTURE], settings: expect.objectContaining({ database: expect.any(String) }) });
    const human = await runCli(['migrate', '--status'], { env: d.env, cwd: d.dir });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^database: \S+/); // which database, then the migrations
    expect(human.stdout.slice(human.stdout.indexOf('applied  '))).toBe(
      [
        ...NAMES.map((n) => `applied  ${n}`),
        `unknown  ${FUTURE}`,
        `${NAMES.length} applied, 0 pending, 1 unknown`,
        'The unknown migrations were applied by a newer svc: upgrade this svc before it serves or changes this database.',
        '',
      ].join('\n'),
    );
  }, 60_000);
});
