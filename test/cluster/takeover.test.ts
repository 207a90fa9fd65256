import { describe, expect, it } from 'vitest';
import { publishArticle } from '../../src/publishing/publish.js';
import { setWebhook } from '../../src/webhooks/service.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import { clusterSupported } from '../helpers/cluster.js';
import { startDaemonOn } from '../helpers/daemon.js';
import { freshEnv } from '../helpers/env.js';
import { seedArticle, seedWorkspace } from '../helpers/seed.js';
import { spawnDaemon } from '../webhooks/daemon-on.js';
import { startReceiver } from '../webhooks/receiver.js';
import { arrivalSeqs, drained, inOrder, onWebhook, receiverView } from '../webhooks/view.js';
import { exitOf } from '../helpers/settle.js';

// test/webhooks/takeover.test.ts follows one held event from a killed daemon to a survivor; here
// three daemons share many articles' events when one of them is killed with deliveries in flight.
describe.skipIf(!clusterSupported)('kill -9 one of three daemons mid-delivery (PostgreSQL)', () => {
  it('the others take its events over; every event is delivered, each article’s in order, and the receiver ends where svc is', { timeout: 90_000 }, async () => {
    let hold = true;
    const receiver = await startReceiver(async () => {
      while (hold) await new Promise((r) => setTimeout(r, 20));
      return { status: 200 };
    });
    const { dir, env: base } = await freshEnv();
    const env = { ...base, SVC_WEBHOOKS_POLL_INTERVAL: '50ms', SVC_WEBHOOKS_TIMEOUT: '10s', SVC_WEBHOOKS_HEARTBEAT_INTERVAL: '100ms', SVC_WEBHOOKS_HEARTBEAT_STALE_AFTER: '1s' };
    // An observer without jobs: it publishes and looks at the database, delivering nothing itself.
    const o = await startDaemonOn(env, dir, {}, false);
    const seeded = await seedWorkspace(o.app);
    await setWebhook(o.app, seeded, { url: receiver.url });
    const ws = await getWorkspace(o.app, seeded.id);
    const articles = await Promise.all(Array.from({ length: 16 }, (_, i) => seedArticle(o.app, ws, { title: `Kept ${i}` })));

    const daemons = await Promise.all([spawnDaemon(env, dir), spawnDaemon(env, dir), spawnDaemon(env, dir)]);
    for (const a of articles) await publishArticle(o.app, ws, a.id);
    for (const a of articles.slice(0, 8)) await publishArticle(o.app, ws, a.id); // an update waiting behind each of these
    await receiver.waitFor(6);

    // Kill a daemon that holds leases on deliveries the receiver is sitting on.
    const held: Array<{ pid: number }> = await o.app
      .db('webhook_events as e')
      .join('daemon_heartbeats as h', 'h.id', 'e.locked_by')
      .whereNotNull('e.locked_by')
      .select('h.pid');
    const victim = daemons.find((d) => held.some((h) => h.pid === d.pid));
    expect(victim, `leases held by pids ${held.map((h) => h.pid)}`).toBeDefined();
    victim!.kill('SIGKILL');
    await exitOf(victim!);
    const inFlight = new Set(receiver.received.map((r) => r.body.eventId)); // arrived, none answered yet
    hold = false;

    await drained(o.app);
    const events: Array<{ id: string; status: string }> = await o.app.db('webhook_events').where({ workspace_id: ws.id }).select('id', 'status');
    expect(events).toHaveLength(articles.length + 8);
    expect(events.filter((e) => e.status !== 'delivered')).toEqual([]);
    const arrived = new Set(receiver.received.map((r) => r.body.eventId));
    for (const e of events) expect(arrived.has(e.id), `event ${e.id} reached the receiver`).toBe(true);
    const shown = receiverView(receiver.received);
    const seqs = await arrivalSeqs(o.app, receiver.received);
    for (const a of articles) {
      expect(shown.has(a.id)).toBe(await onWebhook(o.app, ws.id, a.id));
      expect(inOrder(seqs.get(a.id) ?? []), `${a.id} arrived as ${seqs.get(a.id)}`).toBe(true);
    }
    // Only attempts in flight at the kill were repeated: nothing sent after the takeover arrives twice.
    const counts = new Map<string, number>();
    for (const r of receiver.received) counts.set(r.body.eventId, (counts.get(r.body.eventId) ?? 0) + 1);
    const repeated = [...counts].filter(([, n]) => n > 1).map(([id]) => id);
    expect(repeated.filter((id) => !inFlight.has(id))).toEqual([]);
    const repeats = receiver.received.length - events.length;
    console.log(`kill -9 with ${held.length} leases held: ${repeats} deliveries repeated, ${events.length} events delivered`);
  });
});
