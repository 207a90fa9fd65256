import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/api-keys.js';
import { openDb } from '../../src/db/connect.js';
import { runCli } from '../helpers/cli.js';
import { startDaemon } from '../helpers/daemon.js';
import { PG_URL, tempDir } from '../helpers/env.js';
import { seedArticle, seedUser, seedWorkspace } from '../helpers/seed.js';

const sqlite = (filename: string) => openDb({ client: 'sqlite3', filename, poolMax: 1 });

describe.skipIf(Boolean(PG_URL))('svc restore builds a fresh database with svc\'s own schema (issue 22)', () => {
  it('a backup with added triggers, a view, a column and a table restores its rows only: revoking a key then works', async () => {
    const d = await startDaemon({ jobs: false });
    const ws = await seedWorkspace(d.app);
    const admin = await seedUser(d.app, ws, 'admin');
    const record = await createApiKey(d.app, { workspaceId: ws.id, userId: admin.id, name: 'agent', scopes: ['read'] });
    for (let i = 0; i < 3; i++) await seedArticle(d.app, ws);
    const out = path.join(tempDir(), 'svc.sqlite');
    expect((await runCli(['backup', '--out', out], { env: d.env, cwd: d.dir })).code).toBe(0);
    await d.stop();

    const tampered = sqlite(out);
    await tampered.raw('CREATE TRIGGER keep_keys BEFORE UPDATE ON api_keys BEGIN SELECT RAISE(IGNORE); END');
    await tampered.raw("CREATE TRIGGER no_sign_in BEFORE UPDATE ON users BEGIN SELECT RAISE(ABORT, 'hostile'); END");
    await tampered.raw('CREATE VIEW everything AS SELECT * FROM users');
    await tampered.raw('ALTER TABLE articles ADD COLUMN extra TEXT');
    await tampered.raw('CREATE TABLE hostile (x TEXT)');
    // More rows than SQLite takes in one multi-row insert (500 terms): copied in several batches.
    for (let i = 0; i < 1200; i += 100) await tampered('rate_limits').insert(Array.from({ length: 100 }, (_, j) => ({ key: `k${i + j}`, points: 1, expire: null })));
    await tampered.destroy();

    const restored = await runCli(['restore', out, '--yes'], { env: d.env, cwd: d.dir });
    expect(restored.code, restored.stderr).toBe(0);

    const db = sqlite(d.config.database.filename);
    try {
      expect(await db.raw("SELECT type, name FROM sqlite_master WHERE type IN ('trigger', 'view') OR name = 'hostile'")).toEqual([]);
      expect((await db.raw('PRAGMA table_info(articles)')).map((c: { name: string }) => c.name)).not.toContain('extra');
      expect(Number((await db('articles').count({ n: '*' }))[0].n)).toBe(3);
      expect(Number((await db('users').count({ n: '*' }))[0].n)).toBe(1);
      expect(Number((await db('rate_limits').count({ n: '*' }))[0].n)).toBe(1200);
    } finally {
      await db.destroy();
    }
    const revoke = await runCli(['api-keys', 'revoke', record.id, '--yes', '--workspace', ws.id], { env: d.env, cwd: d.dir });
    expect(revoke.code, revoke.stderr).toBe(0);
    const after = sqlite(d.config.database.filename);
    try {
      expect((await after('api_keys').where({ id: record.id }).first()).revoked_at).not.toBeNull();
    } finally {
      await after.destroy();
    }
  }, 60_000);
});
