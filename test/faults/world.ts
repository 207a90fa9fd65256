import { createApiKey } from '../../src/auth/api-keys.js';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { setWebhook } from '../../src/webhooks/service.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import { type TestDaemon, startDaemonOn } from '../helpers/daemon.js';
import { freshEnv } from '../helpers/env.js';
import { type Relay, startRelay } from '../helpers/relay.js';
import { seedArticle, seedUser, seedWorkspace } from '../helpers/seed.js';
import { rpc, toolCall } from '../mcp/helpers.js';
import { startReceiver } from '../webhooks/receiver.js';

/** Short deadlines so a fault costs a test about a second, not the production defaults. */
export const DEADLINES = {
  'content.timeout': 800,
  'database.queryTimeout': 1200,
  'database.connectTimeout': 800,
  'database.acquireTimeout': 1200,
  'server.readinessTimeout': 400,
  'webhooks.pollInterval': 50,
  'webhooks.retrySchedule': [50, 100, 200, 400],
  'webhooks.timeout': 1000,
};

/** What a client may wait at most for any answer while a dependency is down: the deadline plus room for a loaded machine. */
export const ANSWER_WITHIN_MS = 3000;

/**
 * A daemon `d` that reaches PostgreSQL only through a fault proxy (`relay`), and `other`: a second
 * daemon on a direct link (another process of the cluster, or the CLI) that publishes while `d`'s
 * link is broken. One workspace with a blog key, an API key for MCP, and a webhook receiver; `d`
 * runs the jobs (webhook delivery), `other` does not.
 */
export async function pgBehindRelay() {
  const { dir, env } = await freshEnv();
  const direct = new URL(env.SVC_DATABASE_URL);
  const relay: Relay = await startRelay(direct.hostname, Number(direct.port || 5432));
  const viaRelay = new URL(direct);
  viaRelay.host = `127.0.0.1:${relay.port}`;
  const other = await startDaemonOn(env, dir, DEADLINES, false);
  const d: TestDaemon = await startDaemonOn({ ...env, SVC_DATABASE_URL: viaRelay.toString() }, dir, DEADLINES, true);
  const receiver = await startReceiver();
  const ws = await seedWorkspace(other.app);
  const { key } = await generateBlogKey(other.app, ws);
  await setWebhook(other.app, ws, { url: receiver.url });
  const admin = await seedUser(other.app, ws, 'admin');
  const apiKey = (await createApiKey(other.app, { workspaceId: ws.id, userId: admin.id, name: 'agent', scopes: ['read', 'content', 'publish'] })).key;

  /** Publish a new article from `other`, retrying while its own connections are being replaced. */
  const publishElsewhere = async (title: string) => {
    for (let i = 0; ; i++) {
      try {
        const a = await seedArticle(other.app, ws, { title });
        await publishArticle(other.app, await getWorkspace(other.app, ws.id), a.id);
        return a;
      } catch (err) {
        if (i >= 5) throw err;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  };
  /** A content API GET on `d`, timed. */
  const get = async (path: string) => {
    const started = performance.now();
    const res = await fetch(`${d.url}/api/v1/content${path}`, { headers: { Authorization: `Bearer ${key}` } });
    const body = await res.json();
    return { status: res.status, body, headers: res.headers, ms: performance.now() - started };
  };
  /** An MCP tool call on `d` (raw JSON-RPC, as curl would send it), timed. */
  const mcp = async () => {
    const started = performance.now();
    const res = await rpc(d, toolCall('list_articles', {}), { Authorization: `Bearer ${apiKey}` });
    return { status: res.status, body: await res.json(), headers: res.headers, ms: performance.now() - started };
  };
  const health = async (path = '/healthz') => {
    const started = performance.now();
    const res = await fetch(`${d.url}${path}`);
    return { status: res.status, body: await res.json(), ms: performance.now() - started };
  };
  /** Poll `fn` until `done`, or fail after ms. */
  const until = async <T>(fn: () => Promise<T>, done: (v: T) => boolean, what: string, ms = 15_000): Promise<T> => {
    const end = Date.now() + ms;
    for (;;) {
      const v = await fn();
      if (done(v)) return v;
      if (Date.now() > end) throw new Error(`${what}: still ${JSON.stringify(v)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  /** The articles whose article.published events the receiver got. */
  const delivered = () => new Set(receiver.received.filter((r) => r.body?.event === 'article.published').map((r) => r.body.article?.id));
  return { d, other, relay, ws, key, apiKey, receiver, publishElsewhere, get, mcp, health, until, delivered, dbName: direct.pathname.slice(1) };
}
