import { once } from 'node:events';
import { describe, expect, it, onTestFinished } from 'vitest';
import { publishArticle } from '../../src/publishing/publish.js';
import { setWebhook } from '../../src/webhooks/service.js';
import { startWebhookWorker } from '../../src/webhooks/worker.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import { seedArticle, seedWorkspace } from '../helpers/seed.js';
import { startReceiver } from './receiver.js';
import { webhookWorld } from './setup.js';
import { drained } from './view.js';

// Each article's snapshot is its markdown and its html, about 2 x 20 kB.
const BODY = `## Garden\n\n${'Soil, seeds and a patient gardener. '.repeat(560)}`;

/** A receiver holding every answer until `release()`. */
function holdingScript() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  return { script: async () => (await released, { status: 200 }), release };
}

/** Starts the worker once `n` published articles' events are queued; resolves with the worker's world once it is running. */
async function queued(claimedBytes: number, n: number) {
  const hold = holdingScript();
  // One receiver with all the slots: its part of claimedBytes is all of it.
  const w = await webhookWorld({ jobs: false, script: hold.script, overrides: { 'webhooks.claimedBytes': claimedBytes, 'webhooks.concurrency': 4 } });
  onTestFinished(() => hold.release());
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const a = await w.article({ bodyMarkdown: BODY });
    await publishArticle(w.d.app, w.ws, a.id);
    ids.push(a.id);
  }
  const sizes = (await w.d.app.db('webhook_event_snapshots').select(w.d.app.db.raw('octet_length(snapshot) as n'))).map((r: { n: unknown }) => Number(r.n));
  const worker = startWebhookWorker(w.d.app);
  onTestFinished(() => worker.stop().then(() => undefined));
  return { w, ids, sizes, release: hold.release };
}

/** Events leased and not settled: those the worker holds. */
const leased = async (w: Awaited<ReturnType<typeof queued>>['w']) =>
  Number((await w.d.app.db('webhook_events').where('status', 'pending').whereNotNull('locked_by').count({ n: '*' }).first())!.n);

describe('the memory the worker holds for claimed events (webhooks.claimedBytes)', () => {
  it('claims only the events whose snapshots fit, and the rest as the first are delivered', async () => {
    const { w, ids, sizes, release } = await queued(100_000, 6);
    // Two snapshots fit in 100,000 bytes, three do not.
    expect(sizes.every((s) => s > 100_000 / 3 && s <= 100_000 / 2)).toBe(true);
    await w.receiver.waitFor(2);
    // A later look (the next poll) takes nothing more: two held, two sent, though the receiver has slots for four.
    expect(await once(w.d.app.events, 'webhooks.looked')).toEqual([{ claimed: 0 }]);
    expect(await leased(w)).toBe(2);
    expect(w.receiver.received).toHaveLength(2);
    release();
    await drained(w.d.app);
    expect(w.receiver.received.map((r) => r.body.article.id).sort()).toEqual([...ids].sort());
    expect(Number((await w.d.app.db('webhook_events').where('status', 'delivered').count({ n: '*' }).first())!.n)).toBe(6);
  });

  it('an event larger than claimedBytes is still delivered, alone', async () => {
    const { w, ids, release } = await queued(1_000, 3);
    await w.receiver.waitFor(1);
    expect(await once(w.d.app.events, 'webhooks.looked')).toEqual([{ claimed: 0 }]);
    expect(await leased(w)).toBe(1);
    expect(w.receiver.received).toHaveLength(1);
    release();
    await drained(w.d.app);
    expect(w.receiver.received.map((r) => r.body.article.id).sort()).toEqual([...ids].sort());
  });

  it('a receiver holding its answers holds its part of the memory, as of the slots: the others are still delivered', async () => {
    const hold = holdingScript();
    // Two slots of four: half of claimedBytes, one of these snapshots and a half; three fit in all of it.
    const w = await webhookWorld({
      jobs: false,
      script: hold.script,
      overrides: { 'webhooks.claimedBytes': 150_000, 'webhooks.concurrency': 4, 'webhooks.concurrencyPerReceiver': 2, 'webhooks.timeout': 30_000 },
    });
    onTestFinished(() => hold.release());
    for (let i = 0; i < 4; i++) await publishArticle(w.d.app, w.ws, (await w.article({ bodyMarkdown: BODY })).id);
    const other = await startReceiver();
    const ws = await seedWorkspace(w.d.app);
    await setWebhook(w.d.app, ws, { url: other.url });
    const fresh = await getWorkspace(w.d.app, ws.id);
    const later = await seedArticle(w.d.app, fresh, { bodyMarkdown: BODY });
    await publishArticle(w.d.app, fresh, later.id);
    const worker = startWebhookWorker(w.d.app);
    onTestFinished(() => worker.stop().then(() => undefined));
    // The other receiver's event, queued after the four, is delivered while the first receiver holds its answer.
    expect((await other.waitFor(1)).map((r) => r.body.article.id)).toEqual([later.id]);
    // It holds what fills its two slots, no more.
    await w.receiver.waitFor(2);
    expect(await once(w.d.app.events, 'webhooks.looked')).toEqual([{ claimed: 0 }]);
    expect(await leased(w)).toBe(2);
    hold.release();
    await drained(w.d.app);
    expect(w.receiver.received).toHaveLength(4);
  });
});
