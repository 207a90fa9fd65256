import { getWorkspace } from '../../src/workspaces/service.js';
import { setWebhook } from '../../src/webhooks/service.js';
import { type TestDaemon, startDaemon } from '../helpers/daemon.js';
import { seedArticle, seedWorkspace } from '../helpers/seed.js';
import { type Script, type TestReceiver, startReceiver } from './receiver.js';

/** Fast settings for tests: quick polls, a compressed retry schedule, a short timeout. */
export const FAST = { 'webhooks.pollInterval': 50, 'webhooks.retrySchedule': [50, 100], 'webhooks.timeout': 2000 };

export interface WebhookWorld {
  d: TestDaemon;
  receiver: TestReceiver;
  ws: Awaited<ReturnType<typeof seedWorkspace>>;
  secret: string;
  article(input?: Parameters<typeof seedArticle>[2]): ReturnType<typeof seedArticle>;
}

/** A daemon, a workspace whose webhook points at a scripted receiver, and an article factory. */
export async function webhookWorld(options: { script?: Script; overrides?: Record<string, unknown>; jobs?: boolean } = {}): Promise<WebhookWorld> {
  const d = await startDaemon({ overrides: { ...FAST, ...options.overrides }, jobs: options.jobs });
  const receiver = await startReceiver(options.script);
  const ws = await seedWorkspace(d.app, { websiteUrl: 'https://example.com' });
  const { secret } = await setWebhook(d.app, ws, { url: receiver.url });
  return { d, receiver, ws: await getWorkspace(d.app, ws.id), secret: secret!, article: (input) => seedArticle(d.app, ws, input) };
}
