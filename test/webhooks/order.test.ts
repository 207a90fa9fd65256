import type { Knex } from 'knex';
import { describe, expect, it } from 'vitest';
import { closeDb, openDb, writerOf } from '../../src/db/connect.js';
import { AppError } from '../../src/errors.js';
import { deleteArticle, publishArticle, unpublishArticle } from '../../src/publishing/publish.js';
import { leaseTime, newLease, startHolder } from '../../src/webhooks/lease.js';
import { claimEvents, releaseLeases } from '../../src/webhooks/lease-store.js';
import { startWebhookWorker } from '../../src/webhooks/worker.js';
import { runCli } from '../helpers/cli.js';
import { webhookWorld } from './setup.js';
import { arrivalSeqs, drained, inOrder, onWebhook, receiverView } from './view.js';

const N = 16;
const until = async (cond: () => boolean, what: string) => {
  const deadline = Date.now() + 15_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};
const errorOf = (p: Promise<unknown>) => p.then(() => null, (err: unknown) => err as AppError);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Statement = { sql: string; bindings?: unknown[] };

/**
 * Run `then` once, right after the first statement `match` picks has run and before its caller
 * goes on: an interleaving chosen by the test instead of one a loaded machine may or may not produce.
 */
function afterStatement(db: Knex, match: (q: Statement) => boolean, then: () => Promise<unknown>): { fired(): boolean } {
  const client = db.client as { query(connection: unknown, q: Statement): Promise<unknown> };
  const query = client.query;
  let fired = false;
  client.query = async function (this: unknown, connection: unknown, q: Statement) {
    const result = await query.call(this, connection, q);
    if (!fired && typeof q === 'object' && match(q)) {
      fired = true;
      await then();
    }
    return result;
  };
  return { fired: () => fired };
}

/** The statement by which a process delivering an event itself (its holder id starts with req_) takes its article's queue (holdArticle). */
const holdsTheQueue = (q: Statement) => /^update [`"]webhook_events[`"] set [`"]locked_by[`"] = (\?|\$1)/.test(q.sql) && String(q.bindings?.[0]).startsWith('req_');

/** Every article: svc's state (on the webhook or not) equals what the receiver shows, and its events arrived in seq order. */
async function expectAgreement(w: Awaited<ReturnType<typeof webhookWorld>>, ids: string[]) {
  await drained(w.d.app);
  const shown = receiverView(w.receiver.received);
  const seqs = await arrivalSeqs(w.d.app, w.receiver.received);
  for (const id of ids) {
    expect(shown.has(id), `receiver view of ${id}`).toBe(await onWebhook(w.d.app, w.ws.id, id));
    expect(inOrder(seqs.get(id) ?? []), `${id} arrived as ${seqs.get(id)}`).toBe(true);
  }
}

describe('webhook order per article, unpublish included', () => {
  it('an unpublish racing publish deliveries still in the queue or in flight leaves every post down, events in seq order', async () => {
    // A slow receiver and two attempts at a time: when the unpublishes come, publishes are in flight,
    // claimed and waiting in the worker, or still queued.
    // The receiver holds its first answers until every publish is queued, so how many are still
    // queued does not depend on how fast the publishes are against the deliveries.
    let queued!: () => void;
    const allQueued = new Promise<void>((r) => (queued = r));
    const w = await webhookWorld({ overrides: { 'webhooks.concurrency': 2 }, script: async () => (await allQueued, { status: 200, delayMs: 1000 }) });
    const articles = await Promise.all(Array.from({ length: N }, () => w.article()));
    for (const a of articles) await publishArticle(w.d.app, w.ws, a.id);
    queued();
    await w.receiver.waitFor(1); // deliveries are under way
    const results = await Promise.allSettled(articles.map((a) => unpublishArticle(w.d.app, w.ws, a.id)));
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    await expectAgreement(w, articles.map((a) => a.id));
    for (const a of articles) expect(await onWebhook(w.d.app, w.ws.id, a.id)).toBe(false);
    // Publishes nobody had picked up yet were superseded, not sent.
    const cancelled = await w.d.app.db('webhook_events').where({ status: 'cancelled' }).select('last_error');
    expect(cancelled.length).toBeGreaterThan(0);
    for (const c of cancelled) expect(c.last_error).toMatch(/^superseded by article\.unpublished evt_/);
  });

  it('a delivery that ends just as the unpublish takes the queue (a retry due, a claim given back) is held back and superseded, never sent after it', async () => {
    // No daemon worker at first: the test plays its part, so the moment its claim ends is chosen, not raced.
    const w = await webhookWorld({ jobs: false });
    const a = await w.article();
    await publishArticle(w.d.app, w.ws, a.id);
    const publish = await w.d.app.db('webhook_events').where({ article_id: a.id }).first();
    // A worker has claimed the publish: the unpublish's hold skips it, as one in flight elsewhere.
    const worker = await startHolder(w.d.app, 'daemon');
    const claim = newLease(w.d.app, worker);
    expect(await claimEvents(w.d.app.db, [publish.id], claim, leaseTime(w.d.app))).toHaveLength(1);
    // Right after that hold, the claim ends without a delivery (given back, as a claim that waited too long
    // for a slot is; an attempt that failed leaves the event the same: pending, nobody's).
    // The hold is a write, made on SQLite's writer (busy while it runs): the claim ends through a connection of its own.
    const other = openDb(w.d.app.config.database);
    const ended = afterStatement(writerOf(w.d.app.db), holdsTheQueue, () => releaseLeases(other, claim.token, { ids: [publish.id] }));
    await unpublishArticle(w.d.app, w.ws, a.id).finally(() => closeDb(other));
    expect(ended.fired()).toBe(true);
    await worker.stop();

    // Now a worker runs: nothing of the article may reach the receiver after the unpublish.
    const jobs = startWebhookWorker(w.d.app);
    await drained(w.d.app);
    await jobs.stop();
    expect(w.receiver.received.map((r) => r.body.event)).toEqual(['article.unpublished']);
    expect(await w.d.app.db('webhook_events').where({ id: publish.id }).first()).toMatchObject({ status: 'cancelled', last_error: expect.stringMatching(/^superseded by article\.unpublished evt_/) });
    await expectAgreement(w, [a.id]);
  });

  it('refuses publish and delete (409) while an unpublish waits for its receiver; afterwards they work and both sides agree', async () => {
    // The receiver answers each unpublish only once the test has tried its publish and delete.
    const answer = new Map<string, () => void>();
    const w = await webhookWorld({
      overrides: { 'webhooks.timeout': 15_000 }, // the gates decide when the receiver answers, even on a loaded machine
      script: async (req) => {
        if (req.body?.event === 'article.unpublished') await new Promise<void>((r) => answer.set(req.body.article.id, r));
        return { status: 200 };
      },
    });
    const articles = await Promise.all(Array.from({ length: 8 }, () => w.article()));
    for (const a of articles) await publishArticle(w.d.app, w.ws, a.id);
    await drained(w.d.app);

    await Promise.all(
      articles.map(async (a, i) => {
        const unpublishing = unpublishArticle(w.d.app, w.ws, a.id);
        unpublishing.catch(() => undefined); // awaited below; a failure before then is reported there
        await until(() => answer.has(a.id), 'the unpublish to reach the receiver');
        const publish = await errorOf(publishArticle(w.d.app, w.ws, a.id));
        const del = await errorOf(deleteArticle(w.d.app, w.ws, a.id));
        for (const err of [publish, del]) {
          expect(err).toBeInstanceOf(AppError);
          expect({ code: err!.code, status: err!.status, message: err!.message }).toEqual({
            code: 'unpublish_in_progress',
            status: 409,
            message: `Article "${a.slug}" is being unpublished right now (waiting for the webhook receiver to confirm); try again once that has finished`,
          });
        }
        answer.get(a.id)!();
        await unpublishing;
        // Once it has finished, the decision goes ahead and is delivered after the unpublish.
        if (i % 2 === 0) await publishArticle(w.d.app, w.ws, a.id);
        else await deleteArticle(w.d.app, w.ws, a.id);
      }),
    );
    await expectAgreement(w, articles.map((a) => a.id));
    const shown = receiverView(w.receiver.received);
    articles.forEach((a, i) => expect(shown.has(a.id)).toBe(i % 2 === 0));
  });

  it('the CLI says so: exit 1 with the 409 message while an unpublish waits', async () => {
    let answer!: () => void;
    const answered = new Promise<void>((r) => (answer = r));
    const w = await webhookWorld({ overrides: { 'webhooks.timeout': 15_000 }, script: async (req) => (req.body?.event === 'article.unpublished' ? (await answered, { status: 200 }) : { status: 200 }) });
    const a = await w.article();
    await publishArticle(w.d.app, w.ws, a.id);
    await drained(w.d.app);
    const unpublishing = unpublishArticle(w.d.app, w.ws, a.id);
    unpublishing.catch(() => undefined);
    await w.receiver.waitFor(2);
    const res = await runCli(['articles', 'publish', a.slug, '-w', w.ws.name, '--json'], { env: w.d.env, cwd: w.d.dir });
    expect(res.code).toBe(1);
    expect(res.json().error).toEqual({ code: 'unpublish_in_progress', message: `Article "${a.slug}" is being unpublished right now (waiting for the webhook receiver to confirm); try again once that has finished` });
    answer();
    await unpublishing;
  });

  it('publish, republish and delete racing unpublishes at random moments: the receiver ends up showing exactly what svc has published', async () => {
    const w = await webhookWorld({ overrides: { 'webhooks.timeout': 15_000 }, script: () => ({ status: 200, delayMs: Math.floor(Math.random() * 120) }) });
    const articles = await Promise.all(Array.from({ length: 18 }, () => w.article()));
    for (const a of articles) await publishArticle(w.d.app, w.ws, a.id);
    // What racing decisions may be told; whatever they are told, both sides must agree at the end.
    const expected = new Set(['unpublish_in_progress', 'not_published', 'not_found']);
    const unexpected: unknown[] = [];
    const attempt = async (op: () => Promise<unknown>) => {
      const err = await errorOf(op());
      if (err && !(err instanceof AppError && expected.has(err.code))) unexpected.push(err);
    };
    await Promise.all(
      articles.flatMap((a, i) => [
        attempt(() => unpublishArticle(w.d.app, w.ws, a.id)),
        sleep(Math.random() * 250).then(() => attempt(() => publishArticle(w.d.app, w.ws, a.id))),
        sleep(Math.random() * 250).then(() => attempt(() => unpublishArticle(w.d.app, w.ws, a.id))),
        ...(i % 3 === 0 ? [sleep(Math.random() * 400).then(() => attempt(() => deleteArticle(w.d.app, w.ws, a.id)))] : []),
      ]),
    );
    expect(unexpected).toEqual([]);
    await expectAgreement(w, articles.map((a) => a.id));
  });

  it('when the receiver refuses the unpublish nothing changes: the update it held back goes out after it and the post stays, in its latest version', async () => {
    let refuse = true;
    let answerPublish!: () => void;
    const publishAnswered = new Promise<void>((r) => (answerPublish = r));
    const w = await webhookWorld({
      overrides: { 'webhooks.timeout': 15_000 },
      script: async (req) => {
        if (req.body?.event === 'article.unpublished') return { status: refuse ? 500 : 200 };
        if (req.body?.event === 'article.published') await publishAnswered;
        return { status: 200 };
      },
    });
    const a = await w.article();
    await publishArticle(w.d.app, w.ws, a.id);
    await w.receiver.waitFor(1); // the publish is in flight
    await publishArticle(w.d.app, w.ws, a.id); // the update is queued behind it
    const unpublishing = errorOf(unpublishArticle(w.d.app, w.ws, a.id));
    const decided = () => w.d.app.db('webhook_events').where({ article_id: a.id, event: 'article.unpublished' }).first();
    let settled: unknown;
    void unpublishing.then((err) => (settled = err ?? 'done'));
    for (const deadline = Date.now() + 15_000; !(await decided()); await sleep(5)) {
      // The unpublish settles only after it decided: settled without deciding, it never will.
      if (settled !== undefined || Date.now() > deadline) throw new Error(`the unpublish's event was not queued (the unpublish: ${settled === undefined ? 'still waiting' : String(settled)})`);
    }
    answerPublish(); // the unpublish waited for the publish in flight; it holds the update back
    expect((await unpublishing)?.code).toBe('receiver_refused');
    await drained(w.d.app);
    // The refused unpublish reached the receiver before the update it had held back: that update is the post's latest version.
    expect(w.receiver.received.map((r) => r.body.event)).toEqual(['article.published', 'article.unpublished', 'article.updated']);
    expect(receiverView(w.receiver.received).has(a.id)).toBe(true);
    expect(await onWebhook(w.d.app, w.ws.id, a.id)).toBe(true);

    refuse = false;
    await unpublishArticle(w.d.app, w.ws, a.id);
    expect(receiverView(w.receiver.received).has(a.id)).toBe(false);
    expect(await onWebhook(w.d.app, w.ws.id, a.id)).toBe(false);
  });
});
