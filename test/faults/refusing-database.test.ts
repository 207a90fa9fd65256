import { writerOf } from '../../src/db/connect.js';
import sqlite3 from 'sqlite3';
import { describe, expect, it } from 'vitest';
import { PG_URL } from '../helpers/env.js';
import { adminQuery } from '../helpers/pg-admin.js';
import { ANSWER_WITHIN_MS, loggedWorld } from './world.js';

// PostgreSQL itself refusing svc, each failure class the way an operator meets it: the database
// closed to connections (ALTER DATABASE ... ALLOW_CONNECTIONS false), the role at its connection
// limit, the role's sessions read-only. Every surface answers the documented way (docs/deployment.md,
// "When a dependency fails"): the content API (cached pages too) and the workspace API 503
// unavailable with Retry-After and the class, MCP a JSON-RPC error with HTTP 503, /healthz naming
// the database, the CLI "cannot reach the database <url without password>: ... (<class>)" and exit 1
// without a stack; a few log lines with counts, no stacks; and svc recovers without a restart.

type World = Awaited<ReturnType<typeof loggedWorld>>;
type Answer = Awaited<ReturnType<World['get']>>;

function expectUnavailable(r: Answer, failures: string[]) {
  expect(r.ms).toBeLessThan(ANSWER_WITHIN_MS);
  expect(r.status, JSON.stringify(r.body)).toBe(503);
  expect(r.headers.get('retry-after')).toBe('5');
  expect(r.body.error).toMatchObject({ code: 'unavailable', dependency: 'database', retryAfterSeconds: 5, message: expect.stringMatching(/^The database .+; try again in a moment$/) });
  expect(failures).toContain(r.body.error.failure);
}

function expectMcpUnavailable(r: Answer, failure: string) {
  expect(r.ms).toBeLessThan(ANSWER_WITHIN_MS);
  expect(r.status, JSON.stringify(r.body)).toBe(503);
  expect(r.headers.get('retry-after')).toBe('5');
  expect(r.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringMatching(/^The database /), data: { code: 'unavailable', dependency: 'database', failure } } });
}

/** The OAuth token endpoint's answer: RFC 6749's error object, 503 temporarily_unavailable with Retry-After, the reason in words. */
function expectTokenUnavailable(r: Answer) {
  expect(r.ms).toBeLessThan(ANSWER_WITHIN_MS);
  expect(r.status, JSON.stringify(r.body)).toBe(503);
  expect(r.headers.get('retry-after')).toBe('5');
  expect(r.headers.get('cache-control')).toBe('no-store');
  expect(r.body).toEqual({ error: 'temporarily_unavailable', error_description: expect.stringMatching(/^The database .+; try again in a moment$/) });
}

/** The CLI's answer: one error line naming the database (never its password) and the class, a hint, exit 1, no stack. */
function expectCliRefused(r: { code: number; stderr: string }, w: World, failure: string) {
  expect(r.code, r.stderr).toBe(1);
  const named = w.role ? `postgres://${w.role}@` : 'postgres://postgres@';
  expect(r.stderr).toMatch(new RegExp(`^error: Cannot reach the database ${named}[^ ]+/${w.dbName}: it .+ \\(${failure}\\)\\nhint: database driver: `));
  expect(r.stderr).not.toContain('secret-pw');
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.stderr).not.toMatch(/internal error/i);
}

/** Polls until `answer` is what `done` wants, keeping every answer on the way. */
async function until(fn: () => Promise<Answer>, done: (r: Answer) => boolean, what: string, ms = 10_000): Promise<Answer[]> {
  const seen: Answer[] = [];
  const end = Date.now() + ms;
  for (;;) {
    const r = await fn();
    seen.push(r);
    if (done(r)) return seen;
    if (Date.now() > end) throw new Error(`${what}: still ${r.status} ${JSON.stringify(r.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const terminate = (w: World, who: 'datname' | 'usename', name: string) =>
  adminQuery(PG_URL!, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE ${who} = '${name}' AND pid <> pg_backend_pid()`);

/** What the outage logged: a few warnings with counts and classes, no stack and no error line; then one line once it answers again. */
function expectOutageLogged(w: World, failuresAtLeast: number) {
  const warnings = w.outageLines().filter((l) => l.level === 40);
  expect(warnings.length, JSON.stringify(warnings)).toBeGreaterThanOrEqual(1);
  expect(warnings.length, `${failuresAtLeast} failures, ${warnings.length} lines`).toBeLessThanOrEqual(4);
  for (const l of warnings) {
    expect(l).toMatchObject({ dependency: 'database', failures: expect.any(Number), intervalMs: 10_000, failure: expect.any(String) });
    expect(l).not.toHaveProperty('err');
    expect(String(l.msg)).toMatch(/^database unavailable \(\w+\): \d+ failures? since the last line$/);
  }
  expect(w.errorLines(), JSON.stringify(w.errorLines())).toEqual([]);
}

function expectRecoveryLogged(w: World, failuresAtLeast: number) {
  const back = w.outageLines().filter((l) => /available again/.test(String(l.msg)));
  expect(back).toHaveLength(1);
  expect(back[0]).toMatchObject({ level: 30, failures: expect.any(Number), outageMs: expect.any(Number) });
  expect(back[0].failures as number).toBeGreaterThanOrEqual(failuresAtLeast);
}

describe.skipIf(!PG_URL)('PostgreSQL refusing svc', () => {
  it('the database closed to connections (ALLOW_CONNECTIONS false): 503 unavailable (refused) everywhere, cached pages too; the CLI names the database; few log lines; recovery without restart', async () => {
    const w = await loggedWorld();
    expect((await w.get('/articles')).status).toBe(200); // cached from here
    expect((await w.mcp()).status).toBe(200);

    await adminQuery(PG_URL!, `ALTER DATABASE ${w.dbName} ALLOW_CONNECTIONS false`);
    await terminate(w, 'datname', w.dbName);

    // The first answers may see the connections being cut (terminated, reset); then refused.
    const cached = await until(() => w.get('/articles'), (r) => r.body?.error?.failure === 'refused', 'cached page refused');
    for (const r of cached) expectUnavailable(r, ['refused', 'terminated', 'reset']);
    expectUnavailable(await w.get('/articles/never-published'), ['refused']);
    expectUnavailable(await w.api(), ['refused']);
    expectMcpUnavailable(await w.mcp(), 'refused');
    expectTokenUnavailable(await w.token());
    const health = await w.health();
    expect(health).toMatchObject({ status: 503, body: { status: 'degraded', failing: ['database'], database: { state: 'unavailable', failure: 'refused' } } });
    expectCliRefused(await w.cli(['articles', 'list', '-w', w.ws.id]), w, 'refused');
    expectOutageLogged(w, cached.length + 4);

    await adminQuery(PG_URL!, `ALTER DATABASE ${w.dbName} ALLOW_CONNECTIONS true`);
    await until(() => w.get('/articles'), (r) => r.status === 200, 'content API back');
    expect((await w.health()).status).toBe(200);
    expect((await w.mcp()).status).toBe(200);
    expect((await w.api()).status).toBe(201);
    expect(await w.token()).toMatchObject({ status: 401, body: { error: 'invalid_client' } }); // judged again
    expect((await w.cli(['articles', 'list', '-w', w.ws.id])).code).toBe(0);
    expectRecoveryLogged(w, cached.length + 4);
  }, 45_000);

  it('the role at its connection limit (too many connections): 503 unavailable (too_many_connections), /healthz and the CLI name it; recovery without restart', async () => {
    const w = await loggedWorld({ role: true });
    expect((await w.get('/articles')).status).toBe(200);
    await adminQuery(PG_URL!, `ALTER ROLE ${w.role} CONNECTION LIMIT 0`);
    await terminate(w, 'usename', w.role!);

    const answers = await until(() => w.get('/articles'), (r) => r.body?.error?.failure === 'too_many_connections', 'too many connections');
    for (const r of answers) expectUnavailable(r, ['too_many_connections', 'terminated', 'reset']);
    expectUnavailable(await w.api(), ['too_many_connections']);
    expectMcpUnavailable(await w.mcp(), 'too_many_connections');
    expect(await w.health()).toMatchObject({ status: 503, body: { failing: ['database'], database: { failure: 'too_many_connections' } } });
    expectCliRefused(await w.cli(['articles', 'list', '-w', w.ws.id]), w, 'too_many_connections');
    expectOutageLogged(w, answers.length + 3);

    await adminQuery(PG_URL!, `ALTER ROLE ${w.role} CONNECTION LIMIT -1`);
    await until(() => w.get('/articles'), (r) => r.status === 200, 'content API back');
    expect((await w.mcp()).status).toBe(200);
    expect((await w.health()).status).toBe(200);
    expectRecoveryLogged(w, answers.length + 3);
  }, 45_000);

  it("the role's sessions read-only: reads are served, every write 503 unavailable (read_only), the CLI names it; writable again without a restart", async () => {
    const w = await loggedWorld({ role: true });
    await adminQuery(PG_URL!, `ALTER ROLE ${w.role} SET default_transaction_read_only = on`);
    await terminate(w, 'usename', w.role!);

    expect((await until(() => w.get('/articles'), (r) => r.status === 200, 'reads served')).length).toBeGreaterThan(0);
    expect((await w.health()).status, 'a read-only database still serves: readiness holds').toBe(200);
    expectUnavailable(await w.api(), ['read_only']);
    expectMcpUnavailable(await w.mcp('create_article', { title: 'During', bodyMarkdown: 'Body text.' }), 'read_only');
    const cli = await w.cli(['articles', 'add', '-w', w.ws.id, '--title', 'From the CLI', '--body', 'Body text.']);
    expectCliRefused(cli, w, 'read_only');
    expectOutageLogged(w, 2);

    await adminQuery(PG_URL!, `ALTER ROLE ${w.role} RESET default_transaction_read_only`);
    // A read-only session stays so for its life: svc drops each such connection at its refusal.
    await until(() => w.api(), (r) => r.status === 201, 'writes accepted again');
    expect((await w.mcp('create_article', { title: 'After', bodyMarkdown: 'Body text.' })).status).toBe(200);
    expect((await w.cli(['articles', 'add', '-w', w.ws.id, '--title', 'From the CLI', '--body', 'Body text.'])).code).toBe(0);
    expectRecoveryLogged(w, 2);
    expect(w.errorLines()).toEqual([]);
  }, 45_000);

  it("the role may no longer log in (authentication failed): 503 unavailable (authentication_failed), /healthz and the CLI name it; recovery without restart", async () => {
    const w = await loggedWorld({ role: true });
    expect((await w.get('/articles')).status).toBe(200);
    await adminQuery(PG_URL!, `ALTER ROLE ${w.role} NOLOGIN`);
    await terminate(w, 'usename', w.role!);

    const answers = await until(() => w.get('/articles'), (r) => r.body?.error?.failure === 'authentication_failed', 'authentication failed');
    for (const r of answers) expectUnavailable(r, ['authentication_failed', 'terminated', 'reset']);
    expectUnavailable(await w.api(), ['authentication_failed']);
    expectMcpUnavailable(await w.mcp(), 'authentication_failed');
    expect(await w.health()).toMatchObject({ status: 503, body: { failing: ['database'], database: { failure: 'authentication_failed' } } });
    expectCliRefused(await w.cli(['articles', 'list', '-w', w.ws.id]), w, 'authentication_failed');
    expectOutageLogged(w, answers.length + 3);

    await adminQuery(PG_URL!, `ALTER ROLE ${w.role} LOGIN`);
    await until(() => w.get('/articles'), (r) => r.status === 200, 'content API back');
    expect((await w.mcp()).status).toBe(200);
    expectRecoveryLogged(w, answers.length + 3);
  }, 45_000);

  it('the database gone (renamed away): 503 unavailable (database_missing), /healthz and the CLI name it; recovery without restart once it is back', async () => {
    const w = await loggedWorld();
    expect((await w.get('/articles')).status).toBe(200);
    const moved = `${w.dbName}_moved`;
    // Closed first, so no connection of the daemon's can come back between the cut and the rename.
    await adminQuery(PG_URL!, `ALTER DATABASE ${w.dbName} ALLOW_CONNECTIONS false`);
    await terminate(w, 'datname', w.dbName);
    await adminQuery(PG_URL!, `ALTER DATABASE ${w.dbName} RENAME TO ${moved}`);
    await adminQuery(PG_URL!, `ALTER DATABASE ${moved} ALLOW_CONNECTIONS true`);
    try {
      const answers = await until(() => w.get('/articles'), (r) => r.body?.error?.failure === 'database_missing', 'database missing');
      for (const r of answers) expectUnavailable(r, ['database_missing', 'refused', 'terminated', 'reset']);
      expectUnavailable(await w.api(), ['database_missing']);
      expectMcpUnavailable(await w.mcp(), 'database_missing');
      expect(await w.health()).toMatchObject({ status: 503, body: { failing: ['database'], database: { failure: 'database_missing' } } });
      expectCliRefused(await w.cli(['articles', 'list', '-w', w.ws.id]), w, 'database_missing');
      expectOutageLogged(w, answers.length + 3);
    } finally {
      await adminQuery(PG_URL!, `ALTER DATABASE ${moved} RENAME TO ${w.dbName}`);
    }
    await until(() => w.get('/articles'), (r) => r.status === 200, 'content API back');
    expect((await w.mcp()).status).toBe(200);
    expectRecoveryLogged(w, 4);
  }, 45_000);
});

describe.skipIf(!PG_URL)('the link to PostgreSQL refused and reset (the fault proxy)', () => {
  it('the server gone (open connections reset, new ones refused): 503 unavailable (reset, then refused) everywhere, the CLI names it; recovery without restart', async () => {
    const w = await loggedWorld({ relay: true });
    expect((await w.get('/articles')).status).toBe(200);
    expect((await w.mcp()).status).toBe(200);
    await w.relay!.refuse();
    w.relay!.reset();

    const answers = await until(() => w.get('/articles'), (r) => r.body?.error?.failure === 'refused', 'refused');
    for (const r of answers) expectUnavailable(r, ['refused', 'reset']);
    expectUnavailable(await w.get('/articles/never-published'), ['refused']);
    expectUnavailable(await w.api(), ['refused']);
    expectMcpUnavailable(await w.mcp(), 'refused');
    expect(await w.health()).toMatchObject({ status: 503, body: { failing: ['database'], database: { failure: 'refused' } } });
    expectCliRefused(await w.cli(['articles', 'list', '-w', w.ws.id]), w, 'refused');
    expectOutageLogged(w, answers.length + 4);

    await w.relay!.restore();
    await until(() => w.get('/articles'), (r) => r.status === 200, 'content API back');
    expect((await w.mcp()).status).toBe(200);
    expect((await w.health()).status).toBe(200);
    expectRecoveryLogged(w, answers.length + 4);
  }, 45_000);
});

describe.skipIf(PG_URL)('SQLite held by another process', () => {
  it('a write past the busy timeout: 503 unavailable (busy) with Retry-After, reads and /healthz still served, logged without a stack; writes resume once the lock is let go', async () => {
    const w = await loggedWorld({ overrides: { 'database.busyTimeout': 300 } });
    // Another process (a CLI command, a backup) holds SQLite's write lock.
    const other = await new Promise<sqlite3.Database>((resolve, reject) => {
      const db = new sqlite3.Database(w.d.config.database.filename, (err) => (err ? reject(err) : resolve(db)));
    });
    await new Promise<void>((resolve, reject) => other.exec('BEGIN IMMEDIATE', (err) => (err ? reject(err) : resolve())));
    // Each refusal comes after the busy timeout, not after retries (the transaction takes the
    // write lock first, so there is nothing to retry): well under the 10 s retries of before.
    const started = performance.now();
    const refused = [await w.api(), await w.api()];
    expect(performance.now() - started).toBeLessThan(5_000);
    for (const r of refused) expectUnavailable(r, ['busy']);
    expect((await w.get('/articles')).status).toBe(200);
    expect((await w.health()).status).toBe(200);
    expectOutageLogged(w, 2);

    await new Promise<void>((resolve) => other.exec('ROLLBACK', () => other.close(() => resolve())));
    expect((await w.api()).status).toBe(201);
    expectRecoveryLogged(w, 2);
  }, 30_000);
});

/** Runs `sql` on every connection of the daemon's SQLite pools, the readers' and the writer's (each holds its own settings). */
async function onEveryConnection(w: World, sql: string): Promise<void> {
  type Client = { acquireConnection(): Promise<sqlite3.Database>; releaseConnection(c: sqlite3.Database): Promise<void> };
  const pools: Array<[Client, number]> = [
    [(w.d.app.db as unknown as { client: Client }).client, w.d.config.database.poolMax],
    [(writerOf(w.d.app.db) as unknown as { client: Client }).client, 1],
  ];
  for (const [client, size] of pools) {
    const conns = await Promise.all(Array.from({ length: size }, () => client.acquireConnection()));
    try {
      for (const c of conns) await new Promise<void>((resolve, reject) => c.run(sql, (err) => (err ? reject(err) : resolve())));
    } finally {
      for (const c of conns) await client.releaseConnection(c);
    }
  }
}

describe.skipIf(PG_URL)('SQLite out of space', () => {
  it('the file may not grow (max_page_count at its size: SQLITE_FULL, as a full disk gives): writes 503 unavailable (disk_full) with Retry-After on the workspace API and MCP, reads and /healthz served, logged without a stack; writes resume once it may grow', async () => {
    const w = await loggedWorld();
    expect((await w.get('/articles')).status).toBe(200);
    // The database may not grow past the pages it has: the next write needing a page fails as on a full disk.
    await onEveryConnection(w, 'PRAGMA max_page_count = 1');

    // Writes that fit in the pages already there are accepted, as on a disk with a few bytes left.
    const answers = await until(() => w.api(), (r) => r.status !== 201, 'a write refused');
    const refused = answers.at(-1)!;
    expectUnavailable(refused, ['disk_full']);
    expect(refused.body.error.message).toBe('The database is out of disk space or memory; try again in a moment');
    const m = await w.mcp('create_article', { title: 'During', bodyMarkdown: 'Body text. '.repeat(2000) });
    expectMcpUnavailable(m, 'disk_full');
    expect((await w.get('/articles')).status).toBe(200);
    expect((await w.mcp('list_articles')).status).toBe(200);
    expect((await w.health()).status, 'a full database still serves reads: readiness holds').toBe(200);
    expectOutageLogged(w, 2);

    await onEveryConnection(w, 'PRAGMA max_page_count = 1073741823');
    expect((await w.api()).status).toBe(201);
    expect((await w.mcp('create_article', { title: 'After', bodyMarkdown: 'Body text. '.repeat(2000) })).status).toBe(200);
    // A write that fits the pages there (an API key's "last used") is answered meanwhile and ends
    // the outage as logged; the last line says the database is available again.
    expect(String(w.outageLines().at(-1)?.msg)).toMatch(/^database available again after \d+ failures? over \d+ s$/);
    expect(w.errorLines()).toEqual([]);
  }, 30_000);
});
