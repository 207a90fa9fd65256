import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { VersionReader } from '../../src/content/query-store.js';
import { LISTENER_NAME } from '../../src/db/pg-change-signal.js';
import { runCli } from '../helpers/cli.js';
import { PG_URL } from '../helpers/env.js';
import { seedArticle } from '../helpers/seed.js';
import { contentFixture } from './fixture.js';

// PostgreSQL's freshness rests on one listening connection per daemon (src/db/pg-change-signal.ts).
// When PostgreSQL drops it (a restart, a failover, an admin's pg_terminate_backend), answers must
// stay fresh: the daemon reads the version until it listens again, and trusts nothing from before.
describe.skipIf(!PG_URL)('the content listener connection lost and back', () => {
  it('answers fresh while it is gone and after it reconnects, for changes made by another process', async () => {
    const f = await contentFixture({ jobs: false });
    await f.publish();
    const dbName = decodeURIComponent(new URL(f.d.env.SVC_DATABASE_URL).pathname.slice(1));
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    const listeners = async (): Promise<number[]> =>
      (await admin.query('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = $2', [dbName, LISTENER_NAME])).rows.map((r) => r.pid);
    const waitForListener = async (not: number[] = []): Promise<number> => {
      const until = Date.now() + 15_000;
      for (;;) {
        expect((await f.api('/articles')).status).toBe(200); // a request opens (or reopens) the listener
        const pid = (await listeners()).find((p) => !not.includes(p));
        if (pid) return pid;
        if (Date.now() > until) throw new Error('the daemon never listened');
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const total = async () => (await f.api('/articles')).json().then((b: { data: { total: number } }) => b.data.total);
    const publishElsewhere = async (title: string) => {
      const a = await seedArticle(f.d.app, f.ws, { title });
      const r = await runCli(['articles', 'publish', a.id, '-w', f.ws.name], f.cli);
      expect(r.code, r.stderr).toBe(0);
    };
    try {
      const first = await waitForListener();
      expect(await total()).toBe(1);

      await admin.query('SELECT pg_terminate_backend($1)', [first]);
      await publishElsewhere('While the listener is gone');
      expect(await total(), 'fresh while the listener is down').toBe(2);

      const second = await waitForListener([first]);
      expect(second).not.toBe(first);
      await publishElsewhere('After it came back');
      expect(await total(), 'fresh after the reconnect').toBe(3);
    } finally {
      await admin.end();
    }
  }, 60_000);
});

describe.skipIf(!PG_URL)('the version read on the held connection', () => {
  it('sends one query at a time: reads before the listener is up raise no pg deprecation', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    const f = await contentFixture({ jobs: false });
    await f.publish();
    // A reader of its own, as a daemon has one: its listener is not up at the first reads, so
    // all of them read the version on the one held connection.
    const reader = new VersionReader(f.d.app.db);
    try {
      const versions = await Promise.all(Array.from({ length: 50 }, () => reader.read(f.ws.id)));
      expect(new Set(versions).size).toBe(1);
      await new Promise((r) => setImmediate(r)); // warnings are emitted on a later tick
      expect(warnings.filter((m) => /already executing a query/.test(m))).toEqual([]);
    } finally {
      reader.close();
      process.off('warning', onWarning);
    }
  });
});
