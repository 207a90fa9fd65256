import { describe, expect, it } from 'vitest';
import { type Db, writerOf } from '../../src/db/connect.js';
import { runCleanup } from '../../src/jobs/cleanup.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { purgeSettledWebhooks } from '../../src/webhooks/retention.js';
import { setWebhook } from '../../src/webhooks/service.js';
import { startWebhookWorker } from '../../src/webhooks/worker.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import { runCli } from '../helpers/cli.js';
import { TestClock } from '../helpers/clock.js';
import { startDaemon } from '../helpers/daemon.js';
import { seedArticle, seedUser, seedWorkspace } from '../helpers/seed.js';
import { approve, exchange, registerClient, sessionFor, token } from '../oauth/flow.js';
import { startReceiver } from '../webhooks/receiver.js';
import { FAST } from '../webhooks/setup.js';

const DAY = 86_400_000;

async function until(cond: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const statusOf = async (db: Db, articleId: string) => (await db('webhook_events').where({ article_id: articleId }).orderBy('seq').select('id', 'status', 'attempts')) as Array<{ id: string; status: string; attempts: number }>;

/** Every statement the cleanup ran, recorded from knex's query events. */
function recordStatements(db: Db): { sql: Array<{ sql: string; bindings: unknown[] }>; stop(): void } {
  const sql: Array<{ sql: string; bindings: unknown[] }> = [];
  const on = (q: { sql: string; bindings?: unknown[] }) => sql.push({ sql: q.sql, bindings: q.bindings ?? [] });
  // The deletes run on the writer, the walks on `db`.
  const handles = [db, writerOf(db)];
  for (const h of handles) h.on('query', on);
  return { sql, stop: () => handles.forEach((h) => h.removeListener('query', on)) };
}

/** A statement's plan (PostgreSQL: sequential scans, sorts and bitmap scans off, so a usable index and the order it gives show even on a small table). */
async function plan(db: Db, statement: { sql: string; bindings: unknown[] }): Promise<string> {
  if (db.client.config.client === 'pg') {
    const trx = await db.transaction();
    try {
      for (const setting of ['enable_seqscan', 'enable_sort', 'enable_bitmapscan']) await trx.raw(`SET LOCAL ${setting} = off`);
      return (await trx.raw(`EXPLAIN ${statement.sql.replace(/\$\d+/g, '?')}`, statement.bindings as never)).rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
    } finally {
      await trx.rollback();
    }
  }
  return ((await db.raw(`EXPLAIN QUERY PLAN ${statement.sql}`, statement.bindings as never)) as Array<{ detail: string }>).map((p) => p.detail).join('\n');
}

/** The tables a statement reads without an index (SQLite: SCAN lines; PostgreSQL: Seq Scan). */
const scannedTables = (text: string): string[] => [...text.matchAll(/^\s*(?:->\s*)?(?:SCAN|Seq Scan on) (\w+)(?! USING)/gm)].map((m) => m[1]);

describe('the periodic cleanup keeps the growing tables bounded', () => {
  it('deletes settled webhook events and delivery logs past webhooks.retention, keeping pending ones, recent ones and the newest of each article; a kept event can be redelivered', async () => {
    const clock = new TestClock();
    // Retries an hour apart and no disabling: the failing article's event stays pending throughout.
    const d = await startDaemon({ jobs: false, clock, overrides: { ...FAST, 'webhooks.retrySchedule': [3_600_000, 3_600_000, 3_600_000], 'webhooks.disableAfter': 365 * DAY } });
    const created = await seedWorkspace(d.app, { websiteUrl: 'https://example.com' });
    let failingId = '';
    const receiver = await startReceiver((req) => ({ status: req.body.article?.id === failingId ? 500 : 200 }));
    await setWebhook(d.app, created, { url: receiver.url });
    const ws = await getWorkspace(d.app, created.id);
    const [old, a, failing, fresh] = [await seedArticle(d.app, ws), await seedArticle(d.app, ws), await seedArticle(d.app, ws), await seedArticle(d.app, ws)];
    failingId = failing.id;
    const worker = startWebhookWorker(d.app);
    const settled = async (articleId: string, n: number) => until(async () => (await statusOf(d.app.db, articleId)).filter((e) => e.status === 'delivered').length === n, `${n} delivered`);

    // Day 0: the old article's only event, two of article a, and one that keeps failing.
    await publishArticle(d.app, ws, old.id);
    await settled(old.id, 1);
    await publishArticle(d.app, ws, a.id);
    await settled(a.id, 1);
    await publishArticle(d.app, ws, a.id);
    await settled(a.id, 2);
    await publishArticle(d.app, ws, failing.id);
    await until(async () => (await statusOf(d.app.db, failing.id))[0]?.attempts === 1, 'a failed attempt');

    // Day 31: a third event of a, and a new article.
    clock.advance(31 * DAY);
    await publishArticle(d.app, ws, a.id);
    await settled(a.id, 3);
    await publishArticle(d.app, ws, fresh.id);
    await settled(fresh.id, 1);
    await worker.stop();
    const [a1, a2, a3] = await statusOf(d.app.db, a.id);
    const [oldEvent] = await statusOf(d.app.db, old.id);
    const pending = (await statusOf(d.app.db, failing.id))[0];
    expect(pending.status).toBe('pending');
    const deliveries = async (eventId: string) => Number((await d.app.db('webhook_deliveries').where({ event_id: eventId }).count({ n: '*' }))[0].n);
    expect(await deliveries(pending.id)).toBeGreaterThan(0);

    // Bounded: one statement per table looking at two rows, oldest first. Of the events, the old
    // article's (kept: its newest) and a's first; of the log, the old article's line and a's second;
    // of the snapshots, the old article's (kept) and a's first (a later one of a was delivered).
    expect(await purgeSettledWebhooks(d.app, {}, { size: 2, maxBatches: 1 })).toEqual({ events: 1, deliveries: 2, snapshots: 1 });

    const statements = recordStatements(d.app.db);
    const result = await runCleanup(d.app);
    statements.stop();
    expect(result.webhooks.events).toBe(1);
    const ids = async () => ((await d.app.db('webhook_events').orderBy('seq').select('id')) as Array<{ id: string }>).map((r) => r.id);
    expect(await ids()).toEqual([oldEvent.id, pending.id, a3.id, (await statusOf(d.app.db, fresh.id))[0].id]);
    expect([await deliveries(a1.id), await deliveries(a2.id)]).toEqual([0, 0]);
    expect(await deliveries(oldEvent.id)).toBe(0); // the log of a settled event goes with the retention
    expect(await deliveries(pending.id)).toBeGreaterThan(0); // a pending event's log stays
    expect(await deliveries(a3.id)).toBe(1);
    expect(await runCleanup(d.app)).toMatchObject({ webhooks: { events: 0, deliveries: 0, snapshots: 0 } });

    // Every statement of the cleanup reads its table through an index.
    const deletes = statements.sql.filter((s) => /^delete/i.test(s.sql));
    expect(deletes.length).toBeGreaterThanOrEqual(8);
    // A walk (ORDER BY ... LIMIT) reads in index order and stops at its limit: never a sort of the table.
    for (const s of statements.sql.filter((x) => /^(delete|select)/i.test(x.sql))) {
      const text = await plan(d.app.db, s);
      const walk = /order by .* limit \S+$/i.test(s.sql);
      expect({ sql: s.sql, scanned: walk ? [] : scannedTables(text), sorted: walk && /TEMP B-TREE|Sort/.test(text) }).toEqual({ sql: s.sql, scanned: [], sorted: false });
    }
    // The settled events past the retention are found by their own index, not by walking every settled event.
    const walk = statements.sql.find((s) => /^select .*from .webhook_deliveries. where .created_at. < /i.test(s.sql))!;
    expect(await plan(d.app.db, walk)).toContain('webhook_deliveries_created_at_id');
    // Connections expired from disuse are found by their own index, not by reading every live connection.
    const idle = statements.sql.find((s) => /^delete from .oauth_connections. .*last_used_at/i.test(s.sql))!;
    expect(await plan(d.app.db, idle)).toContain('oauth_connections_idle');

    // The old article's event was kept (its newest): it can still be sent again; a deleted one is gone by name.
    const cli = (...args: string[]) => runCli([...args, '-w', ws.name, '--json'], { env: d.env, cwd: d.dir });
    const again = await cli('webhook', 'redeliver', oldEvent.id);
    expect(again.code, again.stderr).toBe(0);
    expect(again.json()).toMatchObject({ ok: true, eventId: oldEvent.id });
    const gone = await cli('webhook', 'redeliver', a2.id);
    expect({ code: gone.code, error: gone.json().error.code }).toEqual({ code: 1, error: 'not_found' });
    await d.app.db('webhook_events').where({ id: a3.id }).update({ updated_at: new Date(clock.now().getTime() - 40 * DAY).toISOString() });
    expect((await runCleanup(d.app)).webhooks.events).toBe(0); // a3 is the newest of a: kept however old
  }, 60_000);

  it("removes at once the snapshot of an event a later delivered one superseded, keeping its row and log; such an event is not sent again", async () => {
    const d = await startDaemon({ jobs: false, overrides: { ...FAST, 'webhooks.retrySchedule': [3_600_000] } });
    const created = await seedWorkspace(d.app, { websiteUrl: 'https://example.com' });
    let status = 200;
    const receiver = await startReceiver(() => ({ status }));
    await setWebhook(d.app, created, { url: receiver.url });
    const ws = await getWorkspace(d.app, created.id);
    const a = await seedArticle(d.app, ws);
    const worker = startWebhookWorker(d.app);
    for (let n = 1; n <= 3; n++) {
      await publishArticle(d.app, ws, a.id);
      await until(async () => (await statusOf(d.app.db, a.id)).filter((e) => e.status === 'delivered').length === n, `${n} delivered`);
    }
    await worker.stop();
    const [a1, a2, a3] = await statusOf(d.app.db, a.id);
    const snapshotsOf = async () => ((await d.app.db('webhook_event_snapshots').orderBy('event_id').pluck('event_id')) as string[]).sort();

    // Well inside webhooks.retention: the rows and their log stay, the copies of the article the first two carried go.
    expect((await runCleanup(d.app)).webhooks).toEqual({ events: 0, deliveries: 0, snapshots: 2 });
    expect(await snapshotsOf()).toEqual([a3.id]);
    expect((await statusOf(d.app.db, a.id)).map((e) => e.id)).toEqual([a1.id, a2.id, a3.id]);
    expect(Number((await d.app.db('webhook_deliveries').where({ article_id: a.id }).count({ n: '*' }).first())!.n)).toBe(3);

    // The newest is sent again; the receiver refusing it leaves it pending, so no later event of a is delivered now:
    // the second still cannot be sent (its copy is gone), said as the order's refusal is.
    const cli = (...args: string[]) => runCli([...args, '-w', ws.name, '--json'], { env: d.env, cwd: d.dir });
    status = 500;
    expect((await cli('webhook', 'redeliver', a3.id)).json()).toMatchObject({ error: { code: 'redelivery_failed' } });
    expect((await statusOf(d.app.db, a.id))[2].status).toBe('pending');
    const refused = await cli('webhook', 'redeliver', a2.id);
    expect({ code: refused.code, error: refused.json().error.code }).toEqual({ code: 1, error: 'superseded' });
    expect(receiver.received).toHaveLength(4);
  }, 60_000);

  it('deletes expired access tokens, rotated refresh tokens a day after rotation and used codes, keeping live ones; svc doctor shows the sizes', async () => {
    const clock = new TestClock();
    const d = await startDaemon({ jobs: false, clock });
    const ws = await seedWorkspace(d.app);
    const user = await seedUser(d.app, ws, 'admin');
    const client = await registerClient(d);
    const pair = await exchange(d, client.client_id, await approve(d, await sessionFor(d, user.id), client, { workspaceId: ws.id }));
    const refreshed = await token(d, { grant_type: 'refresh_token', refresh_token: pair.refresh_token, client_id: client.client_id });
    expect(refreshed.status).toBe(200);
    const count = async (table: string, where: Record<string, unknown> = {}) => Number((await d.app.db(table).where(where).count({ n: '*' }))[0].n);
    expect([await count('oauth_tokens', { kind: 'access' }), await count('oauth_tokens', { kind: 'refresh' }), await count('oauth_codes')]).toEqual([2, 2, 1]);

    clock.advance(2 * 3_600_000); // both access tokens expired; the rotated refresh token is within its replay day
    expect((await runCleanup(d.app)).oauth).toMatchObject({ accessTokens: 2, refreshTokens: 0 });
    expect(await count('oauth_tokens', { kind: 'refresh' })).toBe(2);
    clock.advance(DAY);
    expect((await runCleanup(d.app)).oauth).toMatchObject({ refreshTokens: 1, codes: 1 });
    expect([await count('oauth_tokens'), await count('oauth_codes')]).toEqual([1, 0]);
    // The current refresh token still works.
    const next = await token(d, { grant_type: 'refresh_token', refresh_token: (await refreshed.json()).refresh_token, client_id: client.client_id });
    expect(next.status).toBe(200);

    const doctor = await runCli(['doctor', '--json'], { env: d.env, cwd: d.dir });
    expect(doctor.code, doctor.stderr).toBe(0);
    const findings = doctor.json<{ findings: Array<{ check: string; detail: string }> }>().findings;
    expect(findings.find((f) => f.check === 'table oauth_tokens')?.detail).toMatch(/^3 rows/); // the pair just issued and the refresh token it rotated
    expect(findings.map((f) => f.check)).toEqual(expect.arrayContaining(['database size', 'table webhook_events', 'table webhook_deliveries', 'table sessions']));
  }, 60_000);
});
