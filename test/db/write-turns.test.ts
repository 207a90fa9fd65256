import { describe, expect, it } from 'vitest';
import { isPostgres } from '../../src/db/connect.js';
import { withTransaction } from '../../src/db/tx.js';
import { inWriteTurn } from '../../src/db/write-turns.js';
import { createArticle } from '../../src/publishing/create.js';
import { startHolder } from '../../src/webhooks/lease.js';
import { startDaemon } from '../helpers/daemon.js';
import { PG_URL } from '../helpers/env.js';
import { loggedDaemon } from '../helpers/logged-daemon.js';
import { seedWorkspace } from '../helpers/seed.js';

const gate = () => {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
};

// A process's write transactions on SQLite take turns in arrival order (db/write-turns.ts)
// instead of meeting at SQLite's lock, where a waiting writer naps in busy_timeout's back-off or
// fails to upgrade and pauses before trying again: under a burst of publishes the webhook
// worker's claims waited 220-360 ms (p50) for the burst to end (docs/performance.md). On
// PostgreSQL they run side by side (this file runs on each database in CI).
describe('write turns (db/write-turns.ts)', () => {
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
    // b and c arrive while a holds its turn (a has written, so SQLite's lock is a's).
    while (!events.includes('a starts')) await new Promise((r) => setImmediate(r));
    const b = write('b');
    const c = inWriteTurn(db, async () => {
      events.push('c starts');
      // Through a transaction of its own, as the lease holder's heartbeat: a statement on the pool
      // would take a turn of its own (writesTakeTurns) and wait for this one.
      await db.transaction((trx) => trx('workspaces').where({ id: ws.id }).update({ website_url: 'https://c.example' }));
      events.push('c ends');
    });
    if (isPostgres(db)) {
      // b waits for a's row lock inside its transaction, c for the same row: both have started.
      while (!events.includes('b starts') || !events.includes('c starts')) await new Promise((r) => setImmediate(r));
      expect(events).not.toContain('a ends');
      first.open();
      await Promise.all([a, b, c]);
      return;
    }
    // Time for b to begin if it could (as before the turns: BEGIN on another pooled connection,
    // then its fn); the order below is what shows it did not, however long this wait.
    await new Promise((r) => setTimeout(r, 50));
    expect(events).toEqual(['a starts']);
    first.open();
    await Promise.all([a, b, c]);
    expect(events).toEqual(['a starts', 'a ends', 'b starts', 'b ends', 'c starts', 'c ends']);
    expect(await db('workspaces').where({ id: ws.id }).first('name', 'website_url')).toEqual({ name: 'b.example', website_url: 'https://c.example' });
  });

  // SQLite only: on PostgreSQL nothing waits for a turn, so there is nothing to bound.
  it.skipIf(PG_URL)('a write stuck in its turn holds the next one no longer than the wait it is given, and the log says so', async () => {
    const d = await loggedDaemon();
    const stuck = gate();
    const held = inWriteTurn(d.app.db, () => stuck.opened);
    // With a wait of 20 ms the next write runs while the first still holds its turn.
    expect(await inWriteTurn(d.app.db, async () => 'ran', 20)).toBe('ran');
    expect(d.lines.filter((l) => l.waitedMs !== undefined)).toEqual([expect.objectContaining({ level: 40, waitedMs: 20, msg: expect.stringContaining('waited 20 ms for its turn') })]);
    stuck.open();
    await held;
    // A write that got its turn in time says nothing.
    expect(await inWriteTurn(d.app.db, async () => 'ran', 20)).toBe('ran');
    expect(d.lines.filter((l) => l.waitedMs !== undefined)).toHaveLength(1);
  });

  it('a turn that fails does not hold the next one', async () => {
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
    db.on('query', (q: { sql: string }) => {
      if (watched.test(q.sql)) events.push(issued);
    });
    const first = gate();
    const a = withTransaction(db, async (trx) => {
      await trx('workspaces').where({ id: ws.id }).update({ name: 'a.example' });
      events.push('a wrote');
      await first.opened;
      events.push('a ends');
    });
    while (!events.includes('a wrote')) await new Promise((r) => setImmediate(r));
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
  it.skipIf(PG_URL)("a lease holder's heartbeat takes its turn behind a write in progress instead of meeting SQLite's lock", async () => {
    const { d, events, finish } = await writeInProgress(/daemon_heartbeats/, 'beat issued');
    const holder = startHolder(d.app, 'daemon');
    await finish();
    const h = await holder;
    expect(events).toEqual(['a wrote', 'a ends', 'beat issued']);
    expect(h.aliveUntil()).toBeGreaterThan(Date.now());
    await h.stop();
  });

  // SQLite only, as above: single statements outside a transaction (an API key's last use, a
  // lease given back) napped at SQLite's lock while another writer of the process held it.
  it.skipIf(PG_URL)('a single write statement outside a transaction waits for the turn in progress', async () => {
    const { db, ws, events, finish } = await writeInProgress(/website_url/, 'single issued');
    const single = db('workspaces').where({ id: ws.id }).update({ website_url: 'https://single.example' }).then((n) => n); // started now (a builder runs when awaited)
    await finish();
    await single;
    expect(events).toEqual(['a wrote', 'a ends', 'single issued']);
    expect(await db('workspaces').where({ id: ws.id }).first('website_url')).toEqual({ website_url: 'https://single.example' });
  });

  // SQLite only, as above: creating a draft outside a transaction (an agent's create_article)
  // opened a transaction of its own with knex, outside the turns.
  it.skipIf(PG_URL)('a draft created outside a transaction takes its turn', async () => {
    const { d, ws, events, finish } = await writeInProgress(/insert into `articles`/, 'draft issued');
    const created = createArticle(d.app, ws, { title: 'Waits its turn', bodyMarkdown: 'Words.' });
    await finish();
    expect((await created).article.title).toBe('Waits its turn');
    expect(events).toEqual(['a wrote', 'a ends', 'draft issued']);
  });
});
