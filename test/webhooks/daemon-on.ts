import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll } from 'vitest';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import { bindServer, createHttpServer } from '../../src/http/server.js';
import { startJobs } from '../../src/jobs/index.js';
import { createLogger } from '../../src/lib/log.js';
import { BIN } from '../helpers/cli.js';
import type { TestDaemon } from '../helpers/daemon.js';

/** Like startDaemon, but on an existing data directory / database (a restart). */
export async function startDaemonOn(env: Record<string, string>, dir: string, overrides: Record<string, unknown> = {}): Promise<TestDaemon> {
  const server = await bindServer(0, '127.0.0.1');
  const port = (server.address() as { port: number }).port;
  const config = loadConfig({ env, cwd: dir, overrides: { 'server.host': '127.0.0.1', 'server.port': port, ...overrides } });
  const app = await createApp({ config, log: createLogger(process.env.SVC_TEST_LOG ?? 'silent') });
  const http = createHttpServer(app, server);
  const jobs = startJobs(app);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await http.close();
    await jobs.stop();
    await app.close();
  };
  afterAll(stop);
  return { app, config, url: config.server.baseUrl, env, dir, stop };
}

/** The compiled daemon as a child process (so it can be killed with SIGKILL); resolves once it listens. */
export async function spawnDaemon(env: Record<string, string>, dir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { cwd: dir, env: { PATH: process.env.PATH ?? '', CI: 'true', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  afterAll(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const deadline = Date.now() + 20_000;
  while (!out.includes('listening on')) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`daemon did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return child;
}
