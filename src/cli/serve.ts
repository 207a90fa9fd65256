import type { AddressInfo } from 'node:net';
import type { Command } from 'commander';
import { createApp } from '../app.js';
import { AppError, usageError } from '../errors.js';
import { createLogger } from '../lib/log.js';
import { VERSION } from '../version.js';
import { configFor } from './harness.js';
import type { Io } from './io.js';

export function registerServe(program: Command, io: Io): void {
  program
    .command('serve', { isDefault: true })
    .description('run migrations, then serve the content API, the MCP endpoint and the background jobs (default command)')
    .option('--host <host>', 'interface to listen on (SVC_HOST)')
    .option('--port <port>', 'port to listen on, 0 for any free port (SVC_PORT)')
    .action(async (opts: { host?: string; port?: string }, command: Command) => {
      const global = command.optsWithGlobals();
      if (opts.port !== undefined && !/^\d+$/.test(opts.port)) throw usageError(`--port takes a number from 0 to 65535, not "${opts.port}"`);
      const flags = { 'server.host': opts.host, 'server.port': opts.port === undefined ? undefined : Number(opts.port) };
      let config = configFor(io, global, flags);
      // Lazy: the HTTP stack and jobs load only for serve.
      const { bindServer, createHttpServer } = await import('../http/server.js');
      const { startJobs } = await import('../jobs/index.js');
      const server = await bindServer(config.server.port, config.server.host).catch((err) => {
        throw listenError(err, config.server.host, config.server.port);
      });
      const address = server.address() as AddressInfo;
      // With port 0 the default base URL names the port actually bound.
      if (config.server.port === 0) config = configFor(io, global, { ...flags, 'server.port': address.port });
      const log = createLogger(config.logging.level, io.stderr);
      const app = await createApp({ config, log }).catch((err) => {
        server.close();
        throw err;
      });
      const http = createHttpServer(app, server);
      const jobs = startJobs(app);
      if (config.unknownEnv.length > 0) {
        log.warn({ variables: config.unknownEnv }, 'ignoring SVC_* variables that name no setting (typo?); see config.example.yaml');
      }
      log.info({ version: VERSION, address: `${address.address}:${address.port}`, baseUrl: config.server.baseUrl, database: config.database.client }, 'svc is serving');
      io.stdout.write(`svc ${VERSION} listening on http://${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port} (base URL ${config.server.baseUrl})\n`);

      await new Promise<void>((resolve) => {
        const stop = (signal: string) => {
          log.info({ signal }, 'shutting down: no new requests; finishing in-flight requests and jobs');
          process.off('SIGTERM', onTerm);
          process.off('SIGINT', onInt);
          resolve();
        };
        const onTerm = () => stop('SIGTERM');
        const onInt = () => stop('SIGINT');
        process.on('SIGTERM', onTerm);
        process.on('SIGINT', onInt);
      });
      await http.close();
      await jobs.stop();
      await app.close();
      log.info('stopped');
    });
}

/** Port taken, privileged or an address this host does not have: one line, exit 1. */
function listenError(err: unknown, host: string, port: number): unknown {
  const code = (err as NodeJS.ErrnoException)?.code;
  const reasons: Record<string, string> = {
    EADDRINUSE: 'the port is already in use (is another svc running?)',
    EACCES: 'permission denied (ports below 1024 need privileges)',
    EADDRNOTAVAIL: 'this machine has no such address',
    ENOTFOUND: 'no such host name',
  };
  if (!code || !reasons[code]) return err;
  return new AppError('listen_failed', 500, `Cannot listen on ${host}:${port}: ${reasons[code]}`, {
    hint: 'Choose another address with SVC_HOST / SVC_PORT (or --host / --port).',
    cause: err,
  });
}
