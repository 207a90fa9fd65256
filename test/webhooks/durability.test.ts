import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { freshEnv } from '../helpers/env.js';
import { startDaemonOn, spawnDaemon } from './daemon-on.js';
import { startReceiver } from './receiver.js';
import { exitOf } from '../helpers/settle.js';

describe('durable outbox', () => {
  it('delivers what the CLI queued without a daemon, and loses nothing when the daemon is killed mid-delivery', async () => {
    let hold = true;
    const receiver = await startReceiver(async () => {
      // While `hold`, requests are never answered: the daemon is killed with one in flight.
      while (hold) await new Promise((r) => setTimeout(r, 20));
      return { status: 200 };
    });
    const { dir, env: base } = await freshEnv();
    const env = { ...base, SVC_WEBHOOKS_POLL_INTERVAL: '50ms', SVC_WEBHOOKS_TIMEOUT: '1s', SVC_WEBHOOKS_HEARTBEAT_INTERVAL: '100ms', SVC_WEBHOOKS_HEARTBEAT_STALE_AFTER: '1s' };
    const cli = (...args: string[]) => runCli(args, { env, cwd: dir });
    expect((await cli('workspaces', 'add', '--name', 'crash.example', '--website', 'https://crash.example')).code).toBe(0);
    expect((await cli('webhook', 'set', '--url', receiver.url)).code).toBe(0);
    expect((await cli('articles', 'add', '--title', 'Survivor', '--body', '## Hi\n\nThere.')).code).toBe(0);

    const published = await cli('articles', 'publish', 'survivor');
    expect(published.code).toBe(0);
    expect(published.stderr).toContain('no daemon is running, so it waits in the outbox and is delivered when svc serve starts');

    const daemon = await spawnDaemon(env, dir);
    const [first] = await receiver.waitFor(1);
    expect(first.body.event).toBe('article.published');
    daemon.kill('SIGKILL');
    await exitOf(daemon);

    // Queued while nothing runs; must go out after the publish, in order.
    expect((await cli('articles', 'publish', 'survivor')).stderr).toContain('no daemon is running');
    hold = false;
    const restarted = await startDaemonOn(env, dir);
    const got = await receiver.waitFor(3);
    expect(got.map((r) => r.body.event)).toEqual(['article.published', 'article.published', 'article.updated']);
    expect(got[1].body.eventId).toBe(first.body.eventId); // the same event, retried once the killed daemon's heartbeat was stale
    expect(got[1].body.deliveryId).not.toBe(first.body.deliveryId);
    const deadline = Date.now() + 10_000;
    let rows: Array<{ status: string }> = [];
    while (Date.now() < deadline) {
      rows = await restarted.app.db('webhook_events').select('status');
      if (rows.every((r) => r.status === 'delivered')) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(rows.map((r) => r.status)).toEqual(['delivered', 'delivered']);
  });
});

describe('clean shutdown', () => {
  it('finishes the attempt in flight before stopping', async () => {
    const { webhookWorld } = await import('./setup.js');
    const { publishArticle } = await import('../../src/publishing/publish.js');
    const w = await webhookWorld({ script: () => ({ status: 200, delayMs: 300 }) });
    await publishArticle(w.d.app, w.ws, (await w.article()).id);
    const [r] = await w.receiver.waitFor(1);
    // Read through a second handle after the daemon closed its own.
    const { openDb } = await import('../../src/db/connect.js');
    const other = openDb(w.d.config.database);
    await w.d.stop();
    try {
      expect((await other('webhook_events').where({ id: r.body.eventId }).first()).status).toBe('delivered');
      expect(await other('webhook_deliveries').where({ event_id: r.body.eventId, ok: true }).count({ n: '*' }).first()).toMatchObject({ n: 1 });
    } finally {
      await other.destroy();
    }
  });
});
