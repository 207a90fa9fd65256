import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/connect.js';
import { runCli } from '../helpers/cli.js';
import { PG_URL, tempDir } from '../helpers/env.js';
import { serve } from '../helpers/serve.js';

// A failing query's parameters (a password hash, a token, a name) never reach stderr or the log
// (issue 22): knex adds the failing SQL to a driver error's message; it keeps its placeholders.
const addTrigger = async (file: string, sql: string) => {
  const db = openDb({ client: 'sqlite3', filename: file, poolMax: 1 });
  await db.raw(sql);
  await db.destroy();
};

describe.skipIf(Boolean(PG_URL))('database errors never print bound values', () => {
  it('a failing CLI command prints the SQL with placeholders, not its values', async () => {
    const dir = tempDir();
    const env = { SVC_DATA_DIR: dir, SVC_LOG_LEVEL: 'debug' };
    expect((await runCli(['workspaces', 'add', '--name', 'a.example', '--website', 'https://a.example'], { env, cwd: dir })).code).toBe(0);
    await addTrigger(path.join(dir, 'svc.sqlite'), "CREATE TRIGGER refuse BEFORE UPDATE ON workspaces BEGIN SELECT RAISE(ABORT, 'refused by a trigger'); END");
    const r = await runCli(['workspaces', 'set', '--workspace', 'a.example', '--website', 'https://bound-value-7f3k.example'], { env, cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('refused by a trigger');
    expect(r.stderr).toMatch(/update `workspaces` set .*= \?/);
    expect(r.stderr + r.stdout).not.toContain('bound-value-7f3k');
  }, 30_000);

  it('a request whose insert fails logs the error without the values it bound', async () => {
    const dir = tempDir();
    const env = { SVC_DATA_DIR: dir };
    expect((await runCli(['migrate'], { env: { ...env, SVC_LOG_LEVEL: 'silent' }, cwd: dir })).code).toBe(0);
    await addTrigger(path.join(dir, 'svc.sqlite'), "CREATE TRIGGER refuse BEFORE INSERT ON oauth_clients BEGIN SELECT RAISE(ABORT, 'refused by a trigger'); END");
    const d = await serve(env, dir);
    const res = await fetch(`${d.url}/oauth/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ client_name: 'bound-value-9q2z agent', redirect_uris: ['http://127.0.0.1:9999/cb'], token_endpoint_auth_method: 'none' }),
    });
    expect(res.status).toBe(500);
    const logged = d.logs().filter((l) => l.err);
    expect(logged.length).toBeGreaterThan(0);
    expect(JSON.stringify(logged)).toContain('refused by a trigger');
    expect(d.stderr()).not.toContain('bound-value-9q2z');
  }, 30_000);
});
