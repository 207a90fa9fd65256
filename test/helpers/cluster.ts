import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { TestClock } from './clock.js';
import { type TestDaemon, startDaemonOn } from './daemon.js';
import { PG_URL, freshEnv } from './env.js';
import { afterFile } from './cleanup.js';

/** One daemon of a cluster: `url` is its own address, `clock` its injected clock. */
export interface Member extends TestDaemon {
  clock: TestClock;
}

export interface Cluster {
  /** The front every daemon believes it is served at (server.baseUrl): a round-robin proxy, like nginx without sticky sessions. */
  url: string;
  daemons: Member[];
  env: Record<string, string>;
  dir: string;
  /** The next daemon in round-robin order. */
  next(): Member;
  /** fetch(path) on the next daemon in round-robin order (its own address). */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** Move every daemon's clock forward by the same amount. */
  advance(ms: number): void;
}

/** Runs only on PostgreSQL: several daemons on one SQLite file are refused by design. */
export const clusterSupported = Boolean(PG_URL);

/**
 * `size` real daemons (in-process, as startDaemon) on one fresh database on ephemeral ports, each
 * with its own TestClock, all configured with the front's URL as server.baseUrl (issuer, MCP
 * resource and links agree whichever daemon answers). Stopped after the test file.
 */
export async function startCluster(options: { size?: number; overrides?: Record<string, unknown>; env?: Record<string, string>; jobs?: boolean } = {}): Promise<Cluster> {
  const { dir, env } = await freshEnv(options.env);
  const front = await startFront();
  const daemons: Member[] = [];
  // One after another: the first migrates, the others find the database up to date.
  for (let i = 0; i < (options.size ?? 3); i++) {
    const clock = new TestClock();
    const d = await startDaemonOn(env, dir, { 'server.baseUrl': front.url, ...options.overrides }, options.jobs ?? true, clock);
    daemons.push({ ...d, url: `http://127.0.0.1:${d.config.server.port}`, clock });
  }
  front.targets.push(...daemons.map((d) => d.url));
  let turn = 0;
  const next = () => daemons[turn++ % daemons.length];
  return {
    url: front.url,
    daemons,
    env,
    dir,
    next,
    fetch: (path, init) => fetch(next().url + path, init),
    advance: (ms) => daemons.forEach((d) => d.clock.advance(ms)),
  };
}

/** A minimal reverse proxy: each request goes to the next target, whatever connection it came on. */
async function startFront(): Promise<{ url: string; targets: string[] }> {
  const targets: string[] = [];
  const agent = new http.Agent({ keepAlive: true });
  let turn = 0;
  const server = http.createServer((req, res) => {
    const target = new URL(targets[turn++ % targets.length]);
    const up = http.request({ agent, host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    up.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  afterFile(async () => {
    server.closeAllConnections();
    agent.destroy();
    await new Promise((r) => server.close(r));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, targets };
}
