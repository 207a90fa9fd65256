import { once } from 'node:events';
import { describe, expect, it, onTestFinished } from 'vitest';
import { type Db, isPostgres } from '../../src/db/connect.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { startWebhookWorker } from '../../src/webhooks/worker.js';
import { webhookWorld } from './setup.js';
import { drained } from './view.js';

/** The worker's read of the webhooks of the events it picked (connectorsByIds). */
const CONNECTORS_BY_ID = /from [`"]connectors[`"] where [`"]id[`"] in/i;

interface Issued {
  sql: string;
  __knexUid?: string;
}

/**
 * The first read of connectors by id on `db` fails for real: as it is issued, the read connection it runs on
 * is cut (PostgreSQL: its socket destroyed, a connection reset; SQLite: the handle closed, and marked as
 * knex marks a PostgreSQL connection that failed, so the pool drops it instead of handing it out again).
 * Resolves with the query's error.
 */
function cutFirstConnectorRead(db: Db): Promise<Error> {
  return new Promise((resolve, reject) => {
    let cutUid: string | undefined;
    const onQuery = (q: Issued) => {
      if (!CONNECTORS_BY_ID.test(q.sql)) return;
      db.off('query', onQuery);
      // Library internals: should an upgrade move them, the test fails naming what broke, not by timing out.
      try {
        const used = db.client.pool.used as Array<{ resource: { __knexUid?: string } & Record<string, any> }>;
        const conn = used.map((u) => u.resource).find((c) => c.__knexUid === q.__knexUid);
        if (!conn) throw new Error(`no pooled connection ${q.__knexUid} for ${q.sql}`);
        cutUid = q.__knexUid;
        if (isPostgres(db)) {
          conn.connection.stream.destroy();
        } else {
          conn.__knex__disposed = new Error('closed by the test');
          conn.close();
        }
      } catch (err) {
        reject(err);
      }
    };
    const onError = (err: Error, q: Issued) => {
      if (q.__knexUid !== cutUid || !CONNECTORS_BY_ID.test(q.sql)) return;
      db.off('query-error', onError);
      resolve(err);
    };
    db.on('query', onQuery);
    db.on('query-error', onError);
  });
}

describe("the read of the claimed events' webhooks", () => {
  it('failing after the claim gives the leases back: the next look claims and delivers the events, no lease to wait out', async () => {
    // Looks only when woken (an event queued, an attempt recorded), so each look below is the one the test caused.
    const w = await webhookWorld({ jobs: false, overrides: { 'webhooks.pollInterval': 3_600_000 } });
    const worker = startWebhookWorker(w.d.app);
    onTestFinished(() => worker.stop().then(() => undefined));
    await once(w.d.app.events, 'webhooks.looked'); // its first look, nothing due

    const failed = cutFirstConnectorRead(w.d.app.db);
    const a = await w.article();
    await publishArticle(w.d.app, w.ws, a.id); // queues the event and wakes the worker
    expect((await failed).message).toMatch(isPostgres(w.d.app.db) ? /Connection terminated unexpectedly/ : /SQLITE_MISUSE: Database handle is closed/);

    // Another article's event wakes the worker: its next look (after the failed one gave its leases back) claims both,
    // long before the first event's lease would have run out.
    const looked = once(w.d.app.events, 'webhooks.looked');
    const b = await w.article();
    await publishArticle(w.d.app, w.ws, b.id);
    expect(await looked).toEqual([{ claimed: 2 }]);
    const received = await w.receiver.waitFor(2);
    expect(received.map((r) => r.body.article.id).sort()).toEqual([a.id, b.id].sort());
    await drained(w.d.app);
    expect(await w.d.app.db('webhook_events').where({ article_id: a.id }).first()).toMatchObject({ status: 'delivered', attempts: 1, locked_by: null });
  });
});
