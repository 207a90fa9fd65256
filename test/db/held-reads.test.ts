import { describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/connect.js';
import { HeldReads } from '../../src/db/held-reads.js';
import { PG_URL } from '../helpers/env.js';
import { startRelay } from '../helpers/relay.js';
import { until } from '../helpers/serve.js';

describe.skipIf(!PG_URL)('HeldReads: the connection kept for the freshness reads', () => {
  it('closing while that connection is still being made (a server that does not answer) cuts it at once, not at the connect deadline', async () => {
    const direct = new URL(PG_URL!);
    const relay = await startRelay(direct.hostname, Number(direct.port || 5432));
    const viaRelay = new URL(direct);
    viaRelay.host = `127.0.0.1:${relay.port}`;
    const db = openDb({ client: 'pg', url: viaRelay.toString(), filename: '', poolMax: 1, connectTimeout: 10_000, acquireTimeout: 10_000 });
    const reads = new HeldReads(db);
    relay.silence(); // every connection from now on hangs in its startup
    // The first read goes through the pool (it hangs too: not awaited) and starts the held connection.
    void reads.rows('svc_test_one', 'select 1', []).catch(() => undefined);
    await until(() => relay.connections.length === 2, 5_000, 'the pooled and the held connection opened');
    const started = performance.now();
    await reads.close();
    await until(() => relay.connections.filter((c) => c.open).length <= 1, 2_000, 'the held connection cut');
    expect(performance.now() - started, 'far from the 10 s connect deadline').toBeLessThan(2_000);
    relay.reset();
    await db.destroy();
  });

  it("an error PostgreSQL answers is the caller's, once: the connection is kept, not dropped for a read on the pool", async () => {
    const db = openDb({ client: 'pg', url: PG_URL!, filename: '', poolMax: 2 });
    const reads = new HeldReads(db);
    try {
      const pid = async () => (await reads.rows('svc_test_pid', 'select pg_backend_pid()', []))[0][0] as number;
      let held = 0;
      // The first reads go through the pool while the held connection is made.
      await until(async () => {
        const { rows } = await db.raw("select pid from pg_stat_activity where application_name = 'svc content freshness' and pid = ?", [(held = await pid())]);
        return rows.length === 1;
      }, 5_000, 'a read on the held connection');
      await expect(reads.rows('svc_test_bad', 'select 1 / 0', [])).rejects.toThrow(/division by zero/);
      expect(await pid(), 'the same connection').toBe(held);
    } finally {
      await reads.close();
      await db.destroy();
    }
  });

  it('a read in flight when its backend is terminated (a restart, an administrator) is read again on the pool, not failed', async () => {
    const db = openDb({ client: 'pg', url: PG_URL!, filename: '', poolMax: 2 });
    const reads = new HeldReads(db);
    try {
      const SLOW = "select pg_backend_pid(), application_name from pg_stat_activity where pid = pg_backend_pid() and pg_sleep(0.5) is not null";
      await until(async () => (await reads.rows('svc_test_who', SLOW, []))[0][1] === 'svc content freshness', 10_000, 'a read on the held connection');
      const reading = reads.rows('svc_test_who', SLOW, []);
      await until(async () => (await db.raw("select 1 from pg_stat_activity where application_name = 'svc content freshness' and state = 'active'")).rows.length === 1, 2_000, 'the read running');
      await db.raw("select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'svc content freshness'");
      // PostgreSQL's answer to the read is a FATAL error: the session is gone, and the same read on the pool succeeds.
      const [row] = await reading;
      expect(row[1], 'answered by a pooled connection').not.toBe('svc content freshness');
    } finally {
      await reads.close();
      await db.destroy();
    }
  });
});
