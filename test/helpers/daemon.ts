import { type App, createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { type HttpServer, bindServer, createHttpServer } from '../../src/http/server.js';
import { startJobs } from '../../src/jobs/index.js';
import type { Clock } from '../../src/lib/clock.js';
import { createLogger } from '../../src/lib/log.js';
import { freshEnv } from './env.js';
import { afterFile } from './cleanup.js';

export interface TestDaemon {
  app: App;
  config: Config;
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  env: Record<string, string>;
  dir: string;
  http: HttpServer;
  stop(): Promise<void>;
}

/**
 * The real daemon in-process: a fresh database (a copy of the run's migrated one), Koa on 127.0.0.1:<ephemeral>, and
 * the background jobs (unless jobs: false). Stopped after the test file. Pass a TestClock
 * (helpers/clock.ts) to move time forward instead of sleeping.
 */
export async function startDaemon(options: { overrides?: Record<string, unknown>; env?: Record<string, string>; jobs?: boolean; clock?: Clock } = {}): Promise<TestDaemon> {
  const { dir, env } = await freshEnv(options.env, { migrated: true });
  return startDaemonOn(env, dir, options.overrides, options.jobs, options.clock);
}

/** Like startDaemon, but on an existing data directory / database (a restart, a second daemon). */
export async function startDaemonOn(env: Record<string, string>, dir: string, overrides: Record<string, unknown> = {}, withJobs = true, clock?: Clock): Promise<TestDaemon> {
  const server = await bindServer(0, '127.0.0.1');
  const port = (server.address() as { port: number }).port;
  const config = loadConfig({ env, cwd: dir, overrides: { 'server.host': '127.0.0.1', 'server.port': port, ...overrides } });
  const app = await createApp({ config, clock, log: createLogger(process.env.SVC_TEST_LOG ?? 'silent') });
  const http = createHttpServer(app, server);
  // As svc serve does: the jobs start once the daemon's heartbeat row is written.
  const jobs = withJobs
    ? await startJobs(app).catch(async (err) => {
        await http.close();
        await app.close();
        throw err;
      })
    : { stop: async () => true };
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await http.close();
    await jobs.stop();
    await app.close();
  };
  afterFile(stop);
  return { app, config, url: config.server.baseUrl, env, dir, http, stop };
}
