import { PassThrough } from 'node:stream';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import { bindServer, createHttpServer } from '../../src/http/server.js';
import { createLogger } from '../../src/lib/log.js';
import { freshEnv } from './env.js';
import { afterFile } from './cleanup.js';

/** The real daemon in-process on an ephemeral port, its log lines (info and up) captured as objects. */
export async function loggedDaemon(overrides: Record<string, unknown> = {}) {
  const { dir, env } = await freshEnv();
  return loggedDaemonOn(env, dir, overrides);
}

/** Like loggedDaemon, on an existing data directory / database. */
export async function loggedDaemonOn(env: Record<string, string>, dir: string, overrides: Record<string, unknown> = {}) {
  const server = await bindServer(0, '127.0.0.1');
  const port = (server.address() as { port: number }).port;
  const config = loadConfig({ env, cwd: dir, overrides: { 'server.host': '127.0.0.1', 'server.port': port, ...overrides } });
  const stream = new PassThrough();
  const lines: Array<Record<string, unknown>> = [];
  let buffered = '';
  stream.on('data', (d) => {
    buffered += d;
    const parts = buffered.split('\n');
    buffered = parts.pop()!;
    for (const p of parts) if (p) lines.push(JSON.parse(p));
  });
  const app = await createApp({ config, log: createLogger('info', stream) });
  const http = createHttpServer(app, server);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await http.close();
    await app.close();
  };
  afterFile(stop);
  return { app, port, url: config.server.baseUrl, config, env, dir, lines, stop };
}
