import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/connect.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { runCli } from '../helpers/cli.js';
import { PG_URL, tempDir } from '../helpers/env.js';
import { webhookWorld } from '../webhooks/setup.js';

const sqlite = (filename: string) => openDb({ client: 'sqlite3', filename, poolMax: 1 });

describe.skipIf(Boolean(PG_URL))('what a restore rolls back (issue 24)', () => {
  it('prints the articles whose published state changes and the row counts that differ, carries no runtime state, and the receiver can be told to take a rolled-back article down', async () => {
    const { d, receiver, ws, article } = await webhookWorld();
    const kept = await article({ title: 'Published before the backup' });
    await publishArticle(d.app, ws, kept.id);
    await receiver.waitFor(1);
    const out = path.join(tempDir(), 'svc.sqlite');
    expect((await runCli(['backup', '--out', out], { env: d.env, cwd: d.dir })).code).toBe(0);
    const later = await article({ title: 'Published after the backup' });
    await publishArticle(d.app, ws, later.id);
    await receiver.waitFor(2);
    expect(receiver.received[1].body).toMatchObject({ event: 'article.published', article: { slug: later.slug } });
    await d.stop();

    // A backup taken while a daemon held a webhook event: its lease and heartbeat are runtime state.
    const backup = sqlite(out);
    await backup('webhook_events').update({ locked_by: 'daemon-of-yesterday', locked_until: '2999-01-01T00:00:00.000Z', lease_token: 'tok' });
    await backup('daemon_heartbeats').insert({ id: 'daemon-of-yesterday', pid: 1, host: 'old-host', started_at: '2026-01-01T00:00:00.000Z', seen_at: '2026-01-01T00:00:00.000Z', kind: 'daemon' });
    await backup.destroy();

    const restored = await runCli(['restore', out, '--yes'], { env: d.env, cwd: d.dir });
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toContain(
      `Rolled back by this restore:\n1 article was published and no longer is (a webhook receiver still shows it):\n  ${later.slug} (${ws.name}): published now -> not there after the restore\n  take one down on the receiver with: svc articles unpublish <slug> --workspace <workspace> --force-notify\n`,
    );
    expect(restored.stdout).toMatch(/Rows that differ: .*articles 2 -> 1.*webhook_events 2 -> 1/);
    const db = sqlite(d.config.database.filename);
    try {
      expect(await db('daemon_heartbeats').select('id')).toEqual([]);
      expect(await db('webhook_events').whereNotNull('locked_by').orWhereNotNull('lease_token').select('id')).toEqual([]);
    } finally {
      await db.destroy();
    }
  }, 60_000);

  it('an article rolled back to a draft is still live on the receiver: unpublish --force-notify sends it article.unpublished, and the hints name that command', async () => {
    const { d, receiver, ws, article } = await webhookWorld();
    const a = await article({ title: 'Rolled back' });
    const out = path.join(tempDir(), 'svc.sqlite');
    expect((await runCli(['backup', '--out', out], { env: d.env, cwd: d.dir })).code).toBe(0);
    await publishArticle(d.app, ws, a.id);
    await receiver.waitFor(1);
    await d.stop();
    const restored = await runCli(['restore', out, '--yes'], { env: d.env, cwd: d.dir });
    expect(restored.stdout).toContain(`  ${a.slug} (${ws.name}): published now -> draft after the restore\n`);

    const plain = await runCli(['articles', 'unpublish', a.slug, '--workspace', ws.id], { env: d.env, cwd: d.dir });
    expect(plain.code).toBe(1);
    expect(plain.stderr).toBe(
      `error: Article "${a.slug}" is not published\nhint: If the webhook receiver still shows it (e.g. a restore rolled it back), send it an article.unpublished all the same: svc articles unpublish ${a.slug} --force-notify\n`,
    );
    const forced = await runCli(['articles', 'unpublish', a.slug, '--workspace', ws.id, '--force-notify', '--json'], { env: d.env, cwd: d.dir });
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.json()).toMatchObject({ notifiedOnly: true, article: { slug: a.slug, status: 'draft' } });
    expect(receiver.received.map((r) => r.body.event)).toEqual(['article.published', 'article.unpublished']);
    expect(receiver.received[1].body).toMatchObject({ article: { id: a.id, slug: a.slug } });

    // The redeliver hint points to a command that works.
    const deliveries = await runCli(['webhook', 'deliveries', '--workspace', ws.id, '--json'], { env: d.env, cwd: d.dir });
    const unpublishEvent = deliveries.json<Array<{ eventId: string; event: string }>>().find((x) => x.event === 'article.unpublished')!;
    const again = await runCli(['webhook', 'redeliver', unpublishEvent.eventId, '--workspace', ws.id], { env: d.env, cwd: d.dir });
    expect(again.code).toBe(1);
    const hinted = /hint: Run (svc articles unpublish \S+ --workspace \S+ --force-notify)/.exec(again.stderr);
    expect(hinted, again.stderr).not.toBeNull();
    const [, ...argv] = hinted![1].split(' ');
    const rerun = await runCli(argv, { env: d.env, cwd: d.dir });
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(receiver.received.map((r) => r.body.event)).toEqual(['article.published', 'article.unpublished', 'article.unpublished']);
  }, 60_000);
});
