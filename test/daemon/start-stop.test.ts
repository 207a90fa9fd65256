import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';
import { freshEnv } from '../helpers/env.js';
import { holdMigrationLock } from '../helpers/locks.js';
import { freePort, refusesConnections, serve, spawnServe, until } from '../helpers/serve.js';

const WAITING = 'waiting for another process to finish migrating this database';
// A client that would wait forever is given this long (generous for a loaded machine): every
// answer must come within it. Before the fix, requests during the start were never answered.
const CLIENT_TIMEOUT_MS = 5000;

interface Probe {
  outcome: 'refused' | 'timeout' | string | number;
  ms: number;
  body?: unknown;
  retryAfter?: string | null;
}

async function probe(url: string): Promise<Probe> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
    const body = await res.json().catch(() => null);
    return { outcome: res.status, ms: ms(), body, retryAfter: res.headers.get('retry-after') };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    if (e.cause?.code === 'ECONNREFUSED') return { outcome: 'refused', ms: ms() };
    return { outcome: e.name === 'TimeoutError' ? 'timeout' : `${e.name}: ${e.cause?.code ?? e.message}`, ms: ms() };
  }
}

/** Consecutive repeats folded: [a, a, b, b, a] -> [a, b, a]. */
const runs = <T>(xs: T[]) => xs.filter((x, i) => i === 0 || xs[i - 1] !== x);

/** A raw HTTP/1.1 connection, to hold a request half-sent across a signal. */
function rawClient(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (d) => (received += d));
  socket.on('error', () => {});
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  return {
    write: (text: string) => socket.write(text),
    received: () => received,
    closed,
    /** Resolves once the bytes received so far match; fails at once when the connection closed without them. */
    seen: (re: RegExp) =>
      until(
        () => {
          if (re.test(received)) return true;
          if (socket.closed) throw new Error(`the daemon closed the connection without ${re}: ${JSON.stringify(received)}`);
          return false;
        },
        10_000,
        `${re} from the daemon`,
      ),
  };
}

/** A POST whose body is still arriving: the daemon has taken it on once it said 100 Continue. */
async function stalledPost(port: number) {
  const client = rawClient(port);
  const body = 'grant_type=authorization_code&code=x';
  client.write(
    `POST /oauth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n${body.slice(0, 10)}`,
  );
  await client.seen(/^HTTP\/1\.1 100 Continue\r\n\r\n/);
  return { ...client, finish: () => client.write(body.slice(10)) };
}

describe('svc serve: start (the real binary)', () => {
  it('answers every request while starting with 503 `starting` and Retry-After; /healthz is 200 only once migrated; a probe every 20 ms never waits', async () => {
    const { dir, env } = await freshEnv();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    // Another process migrating: the daemon must wait for it, and be seen waiting.
    const lock = await holdMigrationLock(env);
    const probes: Probe[] = [];
    let probing = true;
    const prober = (async () => {
      while (probing) {
        probes.push(await probe(`${base}/healthz`));
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    try {
      await until(() => probes.length >= 2, 10_000, 'probes from before the start');
      const svc = spawnServe({ ...env, SVC_PORT: String(port) }, dir);
      await until(() => svc.logs().some((l) => l.msg === WAITING), 20_000, 'the daemon to wait for the migration lock');
      await until(() => probes.some((p) => p.outcome === 503), 10_000, `a 503 while starting`).catch((e) => { throw new Error(`${e.message} ${JSON.stringify(probes.slice(-3))} ${svc.stderr()}`); });

      // Every surface answers at once while starting, not only /healthz.
      const api = await fetch(`${base}/api/v1/content/articles`, { signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
      expect(api.status).toBe(503);
      expect(api.headers.get('retry-after')).toBe('1');
      expect(await api.json()).toEqual({ error: { code: 'starting', message: 'svc is starting; try again in a moment' } });
      const mcp = await fetch(`${base}/api/mcp`, { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' }, signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
      expect(mcp.status).toBe(503);
      // Liveness is not readiness: the process is alive while it starts.
      const live = await fetch(`${base}/livez`, { signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
      expect(live.status).toBe(200);
      expect(await live.json()).toEqual({ status: 'alive', version: VERSION });

      await lock.release();
      expect(await svc.ready).toBe(port);
      await until(() => probes.at(-1)?.outcome === 200, 10_000, '/healthz 200 once ready');
      probing = false;
      await prober;

      expect(probes.filter((p) => typeof p.outcome === 'string' && p.outcome !== 'refused')).toEqual([]);
      expect(Math.max(...probes.map((p) => p.ms))).toBeLessThan(CLIENT_TIMEOUT_MS);
      expect(runs(probes.map((p) => p.outcome))).toEqual(['refused', 503, 200]);
      const starting = probes.find((p) => p.outcome === 503)!;
      expect(starting).toMatchObject({ body: { status: 'starting', version: VERSION }, retryAfter: '1' });
      expect(probes.at(-1)?.body).toMatchObject({ status: 'ok' });

      svc.child.kill('SIGTERM');
      expect(await svc.exited).toEqual({ code: 0, signal: null });
    } finally {
      probing = false;
      await prober;
      await lock.release();
    }
  }, 60_000);

  it('a signal during the start ends the process at once; the next start migrates normally', async () => {
    const { dir, env } = await freshEnv();
    const lock = await holdMigrationLock(env);
    try {
      const svc = spawnServe(env, dir);
      await until(() => svc.logs().some((l) => l.msg === WAITING), 20_000, 'the daemon to wait for the migration lock');
      svc.child.kill('SIGTERM');
      expect(await svc.exited).toEqual({ code: null, signal: 'SIGTERM' });
    } finally {
      await lock.release();
    }
    const again = await serve(env, dir);
    expect((await fetch(`${again.url}/healthz`)).status).toBe(200);
    again.child.kill('SIGTERM');
    expect(await again.exited).toEqual({ code: 0, signal: null });
  }, 60_000);
});

describe('svc serve: stop (the real binary)', () => {
  it('on SIGTERM /healthz turns 503 `draining`, the port closes, requests on open connections are answered with Connection: close; exit 0', async () => {
    const { dir, env } = await freshEnv();
    const svc = await serve(env, dir);
    // A request whose head is still arriving when the signal comes (a balancer's probe on a
    // connection it opened before). The round trip of the next request has it read by then.
    const probe = rawClient(svc.port);
    probe.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const inFlight = await stalledPost(svc.port);

    svc.child.kill('SIGTERM');
    await until(() => svc.logs().some((l) => l.msg?.startsWith('shutting down')), 10_000, 'the shutdown to begin');
    expect(await refusesConnections(svc.port)).toBe(true);

    probe.write('\r\n');
    await probe.closed;
    expect(probe.received()).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(probe.received()).toMatch(/\r\nConnection: close\r\n/i);
    expect(JSON.parse(probe.received().split('\r\n\r\n')[1])).toEqual({ status: 'draining', version: VERSION });

    inFlight.finish();
    await inFlight.closed;
    expect(inFlight.received()).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 4\d\d /);
    expect(inFlight.received()).toMatch(/\r\nConnection: close\r\n/i);
    expect(await svc.exited).toEqual({ code: 0, signal: null });
    expect(svc.logs().at(-1)?.msg).toBe('stopped');
  }, 60_000);

  it('a stalled client is cut at server.shutdownTimeout: the process ends then, with exit 3 and what was cut', async () => {
    const { dir, env } = await freshEnv({ SVC_SERVER_SHUTDOWN_TIMEOUT: '400ms' });
    const svc = await serve(env, dir);
    const stalled = await stalledPost(svc.port); // and never sends the rest

    const signalled = performance.now();
    svc.child.kill('SIGTERM');
    const exit = await svc.exited;
    const took = performance.now() - signalled;
    expect(exit).toEqual({ code: 3, signal: null });
    expect(took).toBeGreaterThanOrEqual(400);
    expect(took).toBeLessThan(3000);
    await stalled.closed;
    expect(stalled.received()).toBe('HTTP/1.1 100 Continue\r\n\r\n');
    expect(svc.stderr()).toContain(
      'error: Stopped at the shutdown deadline (400ms): 1 request was cut unanswered\nhint: Raise server.shutdownTimeout (SVC_SERVER_SHUTDOWN_TIMEOUT) if requests or deliveries need longer; keep it below the service manager\'s stop timeout.\n',
    );
    expect(svc.logs().find((l) => l.msg?.startsWith('stopped at the shutdown deadline'))).toMatchObject({ level: 40, requestsCut: 1, jobsFinished: true });
  }, 60_000);

  it('a second SIGTERM or SIGINT while draining cuts at once (exit 3); a third changes nothing', async () => {
    const { dir, env } = await freshEnv({ SVC_SERVER_SHUTDOWN_TIMEOUT: '60s' });
    const svc = await serve(env, dir);
    const stalled = await stalledPost(svc.port);
    svc.child.kill('SIGTERM');
    await until(() => svc.logs().some((l) => l.msg?.startsWith('shutting down')), 10_000, 'the shutdown to begin');
    const again = performance.now();
    svc.child.kill('SIGINT');
    svc.child.kill('SIGTERM');
    const exit = await svc.exited;
    expect(performance.now() - again).toBeLessThan(3000);
    expect(exit).toEqual({ code: 3, signal: null });
    await stalled.closed;
    expect(svc.stderr()).toContain('error: Stopped by a second signal: 1 request was cut unanswered\n');
    expect(svc.logs().filter((l) => l.msg?.startsWith('second signal'))).toHaveLength(1);
  }, 60_000);
});
