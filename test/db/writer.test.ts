import { describe, expect, it } from 'vitest';
import { toAppError } from '../../src/errors.js';
import { isPostgres, writerOf } from '../../src/db/connect.js';
import { withTransaction } from '../../src/db/tx.js';
import { createArticle } from '../../src/publishing/create.js';
import { startHolder } from '../../src/webhooks/lease.js';
import { startDaemon } from '../helpers/daemon.js';
import { PG_URL } from '../helpers/env.js';
import { seedWorkspace } from '../helpers/seed.js';
import { turnsUntil } from '../helpers/settle.js';

/** What `p` failed with, once it did (asked while waiting for a step of it that will then never come). */
const failure = (p: Promise<unknown>) => {
  let err: unknown;
  p.catch((e) => (err = e ?? 'rejected'));
  return () => err;
};

const gate = () => {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
};

// A process's writes on SQLite go through its writer, one connection handed out in arrival order
// (db/connect.ts writerOf), instead of meeting at SQLite's lock, where a waiting writer naps in
// busy_timeout's back-off: under a burst of publishes the webhook worker's claims waited
// 220-360 ms (p50) for the burst to end (docs/performance.md). On PostgreSQL they run side by
// side (this file runs on each database in CI).
describe('the SQLite writer (db/connect.ts writerOf)', () => {
  it('runs the write transactions of one process one after another in arrival order on SQLite, side by side on PostgreSQL', async () => {
    const d = await startDaemon({ jobs: false });
    const db = d.app.db;
    const ws = await seedWorkspace(d.app);
    const events: string[] = [];
    const first = gate();
    const write = (name: string, wait?: Promise<void>) =>
      withTransaction(db, async (trx) => {
        events.push(`${name} starts`);
        await trx('workspaces').where({ id: ws.id }).update({ name: `${name}.example` });
        await wait;
        events.push(`${name} ends`);
      });
    const a = write('a', first.opened);
    // b and c arrive while a holds the writer (a has written, so SQLite's lock is a's).
    await turnsUntil(() => events.includes('a starts'), 'a starts', { failed: failure(a) });
    const b = write('b');
    // c arrives once b waits for the writer (a transaction asks for it a few promise steps later than a statement).
    await new Promise((r) => setImmediate(r));
    // A single statement through the writer, as the webhook worker's claims.
    const c = writerOf(db)('workspaces')
      .where({ id: ws.id })
      .update({ website_url: 'https://c.example' })
      .on('query', () => events.push('c starts'))
      .then(() => events.push('c ends'));
    if (isPostgres(db)) {
      // b waits for a's row lock inside its transaction, c for the same row: both have started.
      const [bFailed, cFailed] = [failure(b), failure(c)];
      await turnsUntil(() => events.includes('b starts') && events.includes('c starts'), 'b and c start', { failed: () => bFailed() ?? cFailed() });
      expect(events).not.toContain('a ends');
      first.open();
      await Promise.all([a, b, c]);
      return;
    }
    // Time for b to begin if it could (as before the writer: BEGIN on another pooled connection,
    // then its fn); the order below is what shows it did not, however long this wait.
    await new Promise((r) => setTimeout(r, 50));
    expect(events).toEqual(['a starts']);
    first.open();
    await Promise.all([a, b, c]);
    expect(events).toEqual(['a starts', 'a ends', 'b starts', 'b ends', 'c starts', 'c ends']);
    expect(await db('workspaces').where({ id: ws.id }).first('name', 'website_url')).toEqual({ name: 'b.example', website_url: 'https://c.example' });
  });

  // SQLite only: on PostgreSQL nothing waits for the writer, so there is nothing to bound.
  it.skipIf(PG_URL)('a write stuck holding the writer holds the next one no longer than database.acquireTimeout, which then fails 503', async () => {
    const d = await startDaemon({ jobs: false, overrides: { 'database.acquireTimeout': 1_000 } });
    const stuck = gate();
    const held = withTransaction(d.app.db, () => stuck.opened);
    const err = await withTransaction(d.app.db, async () => 'ran').catch((e: unknown) => toAppError(e));
    expect(err).toMatchObject({ status: 503, code: 'unavailable' });
    stuck.open();
    await held;
    expect(await withTransaction(d.app.db, async () => 'ran')).toBe('ran');
  });

  // SQLite only: the rule of withTransaction broken (a write through the pool inside a
  // transaction's callback) waits for the lock its own transaction holds: busyTimeout, then 503.
  it.skipIf(PG_URL)('a write through the pool inside a transaction fails after database.busyTimeout with 503 busy', async () => {
    const d = await startDaemon({ jobs: false, overrides: { 'database.busyTimeout': 100 } });
    const ws = await seedWorkspace(d.app);
    const db = d.app.db;
    const started = performance.now();
    const err = await withTransaction(db, async (trx) => {
      await trx('workspaces').where({ id: ws.id }).update({ name: 'in.example' });
      await db('workspaces').where({ id: ws.id }).update({ website_url: 'https://pool.example' });
    }).catch((e: unknown) => toAppError(e));
    expect(err).toMatchObject({ status: 503, details: { failure: 'busy' } });
    // Bounded by the busy timeout (100 ms here), far from the acquire timeout (10 s).
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('a transaction that fails does not hold the writer', async () => {
    const d = await startDaemon({ jobs: false });
    const db = d.app.db;
    const failing = withTransaction(db, async () => {
      throw new Error('refused');
    });
    const next = withTransaction(db, async (trx) => (await trx('workspaces').count({ n: '*' }).first())?.n);
    await expect(failing).rejects.toThrow('refused');
    expect(Number(await next)).toBeGreaterThanOrEqual(0);
  });

  /**
   * A daemon whose write transaction `a` has written (so SQLite's lock is a's) and waits; `events`
   * records a's steps and every statement matching `watched` the moment it is issued.
   */
  async function writeInProgress(watched: RegExp, issued: string) {
    const d = await startDaemon({ jobs: false });
    const db = d.app.db;
    const ws = await seedWorkspace(d.app);
    const events: string[] = [];
    for (const handle of [db, writerOf(db)]) {
      handle.on('query', (q: { sql: string }) => {
        if (watched.test(q.sql)) events.push(issued);
      });
    }
    const first = gate();
    const a = withTransaction(db, async (trx) => {
      await trx('workspaces').where({ id: ws.id }).update({ name: 'a.example' });
      events.push('a wrote');
      await first.opened;
      events.push('a ends');
    });
    await turnsUntil(() => events.includes('a wrote'), 'a wrote', { failed: failure(a) });
    /** Time for the other statement to reach SQLite if it could (before: at once, to nap there while a held the lock), then a ends. */
    const finish = async () => {
      await new Promise((r) => setTimeout(r, 50));
      expect(events).toEqual(['a wrote']);
      first.open();
      await a;
    };
    return { d, db, ws, events, finish };
  }

  // SQLite only, as above. The worker's first claim waits for its first heartbeat, and a worker
  // whose beats are late claims nothing: a beat that met SQLite's lock napped until a burst of
  // publishes ended (the bench's burst line: first delivery after 438 ms, the whole burst's length).
  it.skipIf(PG_URL)("a lease holder's heartbeat waits for the writer behind a write in progress instead of meeting SQLite's lock", async () => {
    const { d, events, finish } = await writeInProgress(/daemon_heartbeats/, 'beat issued');
    const holder = startHolder(d.app, 'daemon');
    await finish();
    const h = await holder;
    expect(events).toEqual(['a wrote', 'a ends', 'beat issued']);
    expect(h.aliveUntil()).toBeGreaterThan(Date.now());
    await h.stop();
  });

  // SQLite only, as above: single statements outside a transaction (an API key's last use, a
  // lease given back, a claim) napped at SQLite's lock while another writer of the process held it.
  it.skipIf(PG_URL)('a single write statement through the writer waits for the write in progress', async () => {
    const { db, ws, events, finish } = await writeInProgress(/website_url/, 'single issued');
    const single = writerOf(db)('workspaces').where({ id: ws.id }).update({ website_url: 'https://single.example' }).then((n) => n); // started now (a builder runs when awaited)
    await finish();
    await single;
    expect(events).toEqual(['a wrote', 'a ends', 'single issued']);
    expect(await db('workspaces').where({ id: ws.id }).first('website_url')).toEqual({ website_url: 'https://single.example' });
  });

  // SQLite only, as above: creating a draft outside a transaction (an agent's create_article)
  // opened a transaction of its own with knex, beside the writer.
  it.skipIf(PG_URL)('a draft created outside a transaction waits for the writer', async () => {
    const { d, ws, events, finish } = await writeInProgress(/insert into `articles`/, 'draft issued');
    const created = createArticle(d.app, ws, { title: 'Waits for the writer', bodyMarkdown: 'Words.' });
    await finish();
    expect((await created).article.title).toBe('Waits for the writer');
    expect(events).toEqual(['a wrote', 'a ends', 'draft issued']);
  });
});
