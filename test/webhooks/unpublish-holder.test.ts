import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { getArticle } from '../../src/articles/service.js';
import { publishArticle, scheduleArticle } from '../../src/publishing/publish.js';
import { BIN, spawnCli } from '../helpers/cli.js';
import { webhookWorld } from './setup.js';
import { drained, receiverView } from './view.js';
import { exitOf } from '../helpers/settle.js';

// Small enough for a quick test, large enough that a loaded machine does not make a live holder look gone.
const BEATS = { 'webhooks.heartbeatInterval': 100, 'webhooks.heartbeatStaleAfter': 1_000 };
const BEAT_ENV = { SVC_WEBHOOKS_HEARTBEAT_INTERVAL: '100ms', SVC_WEBHOOKS_HEARTBEAT_STALE_AFTER: '1s', SVC_WEBHOOKS_TIMEOUT: '5s' };

describe('an unpublish run by the CLI holds its lease with its own heartbeat', () => {
  it('keeps it while its receiver takes longer than heartbeatStaleAfter: the daemon neither abandons it nor lets a publish in', async () => {
    let answer!: () => void;
    const answered = new Promise<void>((r) => (answer = r));
    const w = await webhookWorld({ overrides: { ...BEATS, 'webhooks.timeout': 5_000 }, script: async (req) => (req.body?.event === 'article.unpublished' ? (await answered, { status: 200 }) : { status: 200 }) });
    const a = await w.article();
    await publishArticle(w.d.app, w.ws, a.id);
    await drained(w.d.app);

    const unpublishing = spawnCli(['articles', 'unpublish', a.slug, '-w', w.ws.name], { env: { ...w.d.env, ...BEAT_ENV }, cwd: w.d.dir });
    await w.receiver.waitFor(2);
    await new Promise((r) => setTimeout(r, 2_000)); // twice the staleness passes while the receiver holds its answer
    await expect(publishArticle(w.d.app, w.ws, a.id)).rejects.toMatchObject({ code: 'unpublish_in_progress', status: 409 });
    await expect(scheduleArticle(w.d.app, w.ws, a.id, new Date(w.d.app.clock.now().getTime() + 86_400_000).toISOString()), 'scheduling is a decision too').rejects.toMatchObject({ code: 'unpublish_in_progress', status: 409 });
    answer();
    const res = await unpublishing;
    expect(res.code, res.stderr).toBe(0);
    expect((await getArticle(w.d.app, w.ws, a.id)).status).toBe('draft');
    expect(receiverView(w.receiver.received).has(a.id)).toBe(false);
  });

  it('killed while waiting, its unpublish is abandoned (failed, the error kept) and the article takes decisions again', async () => {
    const w = await webhookWorld({
      overrides: BEATS,
      // The unpublish is never answered: its process is killed meanwhile.
      script: (req) => (req.body?.event === 'article.unpublished' ? { status: 200, delayMs: 60_000 } : { status: 200 }),
    });
    const a = await w.article();
    await publishArticle(w.d.app, w.ws, a.id);
    await drained(w.d.app);

    const child = spawn(process.execPath, [BIN, 'articles', 'unpublish', a.slug, '-w', w.ws.name], { cwd: w.d.dir, env: { PATH: process.env.PATH ?? '', CI: 'true', ...w.d.env, ...BEAT_ENV }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    await w.receiver.waitFor(2).catch((err) => {
      throw new Error(`${(err as Error).message}; the CLI said: ${output}`);
    });
    child.kill('SIGKILL');
    await exitOf(child);

    // The daemon's worker marks it abandoned once the CLI's heartbeat is stale.
    const deadline = Date.now() + 10_000;
    let row: { status: string; last_error: string } | undefined;
    while (Date.now() < deadline) {
      row = await w.d.app.db('webhook_events').where({ article_id: a.id, event: 'article.unpublished' }).first();
      if (row?.status !== 'pending') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(row).toMatchObject({ status: 'failed', last_error: 'abandoned: the process waiting for the receiver stopped before it answered' });
    expect((await w.d.app.db('publications').where({ article_id: a.id }).whereNotNull('last_error').first())?.last_error).toBe(
      'The unpublish was abandoned: the process waiting for the receiver stopped before it answered; the article stays published. Run the unpublish again.',
    );
    expect((await getArticle(w.d.app, w.ws, a.id)).status).toBe('published');
    // Decisions about the article go ahead again: a republish is delivered.
    await publishArticle(w.d.app, w.ws, a.id);
    const got = await w.receiver.waitFor(3);
    expect(got.map((r) => r.body.event)).toEqual(['article.published', 'article.unpublished', 'article.updated']);
  });
});
