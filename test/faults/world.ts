import { createApiKey } from '../../src/auth/api-keys.js';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { setWebhook } from '../../src/webhooks/service.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import { type TestDaemon, startDaemonOn } from '../helpers/daemon.js';
import { runCli } from '../helpers/cli.js';
import { afterFile } from '../helpers/cleanup.js';
import { PG_URL, freshEnv } from '../helpers/env.js';
import { loggedDaemonOn } from '../helpers/logged-daemon.js';
import { adminQuery } from '../helpers/pg-admin.js';
import { sessionFor } from '../oauth/flow.js';
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

/**
 * A daemon with its log captured (`lines`), on a fresh database (a non-superuser `role` of its
 * own on PostgreSQL when asked, so role settings and connection limits apply to it), with a
 * workspace, a blog key, an API key for MCP and an admin's browser session (and with `relay`, a
 * fault proxy between svc and PostgreSQL): what the faults that
 * the database itself produces are checked through (content API, workspace API, MCP, /healthz, the CLI).
 */
export async function loggedWorld(options: { role?: boolean; relay?: boolean; overrides?: Record<string, unknown> } = {}) {
  let role: string | undefined;
  let grantedIn: string | undefined;
  if (options.role && PG_URL) {
    role = `svc_r_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`;
    await adminQuery(PG_URL, `CREATE ROLE ${role} LOGIN`);
    // Registered before the daemon, so it runs once the role's sessions are gone. The database
    // may outlive the file (test databases are dropped at the end of the run): its grants to the
    // role go first, or the role could not be dropped.
    afterFile(async () => {
      if (grantedIn) await adminQuery(grantedIn, `DROP OWNED BY ${role}`).catch(() => undefined); // the database may be gone already
      await adminQuery(PG_URL!, `DROP ROLE IF EXISTS ${role}`);
    });
  }
  const { dir, env } = await freshEnv({}, { migrated: true });
  const dbName = env.SVC_DATABASE_URL ? new URL(env.SVC_DATABASE_URL).pathname.slice(1) : '';
  if (role) {
    const url = new URL(env.SVC_DATABASE_URL);
    grantedIn = url.toString();
    await adminQuery(grantedIn, `GRANT ALL ON ALL TABLES IN SCHEMA public TO ${role}; GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO ${role}`);
    url.username = role;
    env.SVC_DATABASE_URL = url.toString();
  }
  let relay: Relay | undefined;
  if (options.relay && env.SVC_DATABASE_URL) {
    const url = new URL(env.SVC_DATABASE_URL);
    relay = await startRelay(url.hostname, Number(url.port || 5432));
    url.host = `127.0.0.1:${relay.port}`;
    env.SVC_DATABASE_URL = url.toString();
  }
  const d = await loggedDaemonOn(env, dir, { ...DEADLINES, ...options.overrides });
  const daemon = d as unknown as TestDaemon;
  const ws = await seedWorkspace(d.app);
  const { key } = await generateBlogKey(d.app, ws);
  const admin = await seedUser(d.app, ws, 'admin');
  const apiKey = (await createApiKey(d.app, { workspaceId: ws.id, userId: admin.id, name: 'agent', scopes: ['read', 'content', 'publish'] })).key;
  const { cookie } = await sessionFor(daemon, admin.id);
  const timed = async (res: Promise<Response>) => {
    const started = performance.now();
    const r = await res;
    const text = await r.text();
    return { status: r.status, headers: r.headers, body: text ? JSON.parse(text) : null, ms: performance.now() - started };
  };
  return {
    d,
    ws,
    dbName,
    role,
    /** The fault proxy between svc (daemon and CLI) and PostgreSQL, with relay: true. */
    relay,
    /** A content API GET. */
    get: (path: string) => timed(fetch(`${d.url}/api/v1/content${path}`, { headers: { Authorization: `Bearer ${key}` } })),
    /** The workspace API: an admin creates an API key (a read of the session, then a write). */
    api: () =>
      timed(
        fetch(`${d.url}/api/v1/workspaces/${ws.id}/api-keys`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Cookie: cookie, Origin: d.url, 'Sec-Fetch-Site': 'same-origin' },
          body: JSON.stringify({ name: 'x', scopes: ['read'] }),
        }),
      ),
    /** One MCP tool call, raw JSON-RPC. */
    mcp: (tool = 'list_articles', args: Record<string, unknown> = {}) => timed(rpc(daemon, toolCall(tool, args, 7), { Authorization: `Bearer ${apiKey}` })),
    health: () => timed(fetch(`${d.url}/healthz`)),
    /** An OAuth token request (a refresh with a token that needs the database to be judged). */
    token: () =>
      timed(
        fetch(`${d.url}/oauth/token`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'svc_rt_unknown', client_id: 'svc_client_unknown' }).toString(),
        }),
      ),
    /** `svc <args>` against the same database, its URL carrying a password (trust auth ignores it) the output must not show. */
    cli: (args: string[]) => {
      const url = env.SVC_DATABASE_URL ? new URL(env.SVC_DATABASE_URL) : undefined;
      if (url) url.password = 'secret-pw';
      return runCli(args, { env: { ...env, ...(url ? { SVC_DATABASE_URL: url.toString() } : {}), SVC_DATABASE_CONNECT_TIMEOUT: '1000' }, cwd: dir });
    },
    /** The log lines about the database's outages: warnings while down, the one line when it answers again. */
    outageLines: () => d.lines.filter((l) => l.dependency === 'database'),
    errorLines: () => d.lines.filter((l) => Number(l.level) >= 50),
  };
}
