import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/lib/log.js';
import { PG_URL, freshEnv } from '../helpers/env.js';
import { startRelay } from '../helpers/relay.js';
import { serve } from '../helpers/serve.js';
import { seedWorkspace } from '../helpers/seed.js';

// A daemon stopped while its link to PostgreSQL is silent (the database host died, a firewall
// dropped the mapping) with connections idle in its pool. The pool ends each with a goodbye the
// server never answers: that wait held the stop to the shutdown deadline, which then reported
// "database connections still busy were left open" (exit 3) when nothing was in progress.
describe.skipIf(!PG_URL)('stopping with the database link silent', () => {
  it('SIGTERM: idle pooled connections are cut after their goodbye goes unanswered; the daemon exits 0 well within the deadline', async () => {
    const { dir, env } = await freshEnv({}, { migrated: true });
    const app = await createApp({ config: loadConfig({ env, cwd: dir }), log: createLogger('silent') });
    const { key } = await generateBlogKey(app, await seedWorkspace(app));
    await app.close();
    const direct = new URL(env.SVC_DATABASE_URL);
    const relay = await startRelay(direct.hostname, Number(direct.port || 5432));
    const viaRelay = new URL(direct);
    viaRelay.host = `127.0.0.1:${relay.port}`;
    const shutdownMs = 8_000;
    const d = await serve(
      { ...env, SVC_DATABASE_URL: viaRelay.toString(), SVC_SERVER_SHUTDOWN_TIMEOUT: `${shutdownMs}`, SVC_DATABASE_QUERY_TIMEOUT: '1200', SVC_DATABASE_CONNECT_TIMEOUT: '800' },
      dir,
    );
    // Uncached pages at once: the pool opens several connections, idle once answered.
    const pages = await Promise.all(Array.from({ length: 30 }, (_, i) => fetch(`${d.url}/api/v1/content/articles?page=${i + 1}`, { headers: { Authorization: `Bearer ${key}` } }).then((r) => r.status)));
    expect(pages.every((s) => s === 200)).toBe(true);
    expect(relay.connections.filter((c) => c.open).length, 'several pooled connections open').toBeGreaterThanOrEqual(3);

    relay.silence();
    const started = performance.now();
    d.child.kill('SIGTERM');
    const exit = await d.exited;
    const ms = performance.now() - started;
    expect(exit, d.stderr().slice(-2000)).toEqual({ code: 0, signal: null });
    // Its own writes at stop (the heartbeat's removal) wait out database.queryTimeout; each idle connection a second more.
    expect(ms, 'well before the shutdown deadline').toBeLessThan(shutdownMs - 1_000);
    expect(d.logs().some((l) => l.msg === 'stopped at the shutdown deadline: something in progress was cut')).toBe(false);
    expect(relay.connections.every((c) => !c.open), 'every connection through the silent link was closed by the daemon').toBe(true);
  }, 30_000);
});
