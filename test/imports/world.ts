import { cpSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { setWebhook } from '../../src/webhooks/service.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import { runCli } from '../helpers/cli.js';
import type { TestClock } from '../helpers/clock.js';
import { startDaemon } from '../helpers/daemon.js';
import { seedWorkspace } from '../helpers/seed.js';
import { type TestReceiver, startReceiver } from '../webhooks/receiver.js';
import { FAST } from '../webhooks/setup.js';

export const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');

/**
 * A daemon (scheduler and webhook worker running, fast settings), a workspace for
 * https://example.com with a blog key and optionally a webhook to a real receiver, the CLI in
 * its data directory, and the content API.
 */
export async function importWorld(opts: { webhook?: boolean; clock?: TestClock; blogKey?: boolean } = {}) {
  const d = await startDaemon({ overrides: { ...FAST, 'scheduler.interval': 50 }, clock: opts.clock });
  const created = await seedWorkspace(d.app, { websiteUrl: 'https://example.com' });
  const key = opts.blogKey === false ? '' : (await generateBlogKey(d.app, created)).key;
  let receiver: TestReceiver | undefined;
  if (opts.webhook) {
    receiver = await startReceiver();
    await setWebhook(d.app, created, { url: receiver.url });
  }
  const ws = await getWorkspace(d.app, created.id);
  return {
    d,
    ws,
    receiver,
    cli: (args: string[]) => runCli([...args, '--workspace', ws.name], { env: d.env, cwd: d.dir }),
    async api(p: string) {
      const res = await fetch(`${d.url}/api/v1/content${p}`, { headers: { Authorization: `Bearer ${key}` } });
      return { status: res.status, headers: res.headers, body: (await res.json()) as any };
    },
    /** Copy a fixture into the data directory, so paths in messages read as typed. */
    fixture(name: string) {
      cpSync(path.join(FIXTURES, name), path.join(d.dir, name), { recursive: true });
    },
  };
}

export const slugDates = (articles: Array<{ slug: string; publishedAt: string; updatedAt: string }>) => articles.map((a) => [a.slug, a.publishedAt, a.updatedAt]);
