import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/connect.js';
import { runCli } from '../helpers/cli.js';
import { PG_URL, freshEnv } from '../helpers/env.js';
import { serve } from '../helpers/serve.js';

// A failing query's parameters (a password hash, a token, a name) never reach stderr or the log
// (issue 22): knex adds the failing SQL to a driver error's message; it keeps its placeholders.
/** A trigger that refuses every `op` on `table`, in the test's database (SQLite or PostgreSQL). */
async function refuse(env: Record<string, string>, dir: string, op: 'INSERT' | 'UPDATE', table: string): Promise<void> {
  const db = PG_URL ? openDb({ client: 'pg', url: env.SVC_DATABASE_URL, filename: '', poolMax: 1 }) : openDb({ client: 'sqlite3', filename: path.join(dir, 'svc.sqlite'), poolMax: 1 });
  try {
    if (PG_URL) {
      await db.raw("CREATE OR REPLACE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by a trigger'; END $$");
      await db.raw(`CREATE TRIGGER refuse BEFORE ${op} ON ${table} FOR EACH ROW EXECUTE FUNCTION refuse()`);
    } else {
      await db.raw(`CREATE TRIGGER refuse BEFORE ${op} ON ${table} BEGIN SELECT RAISE(ABORT, 'refused by a trigger'); END`);
    }
  } finally {
    await db.destroy();
  }
}

// On PostgreSQL knex numbers the placeholders ($1) before it adds the SQL to a message, so there
// the values never showed; these tests guard both engines.
describe('database errors never print bound values', () => {
  it('a failing CLI command prints the SQL with placeholders, not its values', async () => {
    const { dir, env: base } = await freshEnv();
    const env = { ...base, SVC_LOG_LEVEL: 'debug' };
    expect((await runCli(['workspaces', 'add', '--name', 'a.example', '--website', 'https://a.example'], { env, cwd: dir })).code).toBe(0);
    await refuse(env, dir, 'UPDATE', 'workspaces');
    const r = await runCli(['workspaces', 'set', '--workspace', 'a.example', '--website', 'https://bound-value-7f3k.example'], { env, cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('refused by a trigger');
    expect(r.stderr).toMatch(PG_URL ? /update "workspaces" set .*= \$1/ : /update `workspaces` set .*= \?/);
    expect(r.stderr + r.stdout).not.toContain('bound-value-7f3k');
  }, 30_000);

  it('a request whose insert fails logs the error without the values it bound', async () => {
    const { dir, env: base } = await freshEnv();
    const { SVC_LOG_LEVEL: _, ...env } = base;
    expect((await runCli(['migrate'], { env: base, cwd: dir })).code).toBe(0);
    await refuse(env, dir, 'INSERT', 'oauth_clients');
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
