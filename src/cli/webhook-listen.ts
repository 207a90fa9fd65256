import type { AddressInfo } from 'node:net';
import type { Command } from 'commander';
import { AppError, usageError } from '../errors.js';
import { createReceiver } from '../webhooks/receiver.js';
import type { Io } from './io.js';

/**
 * `svc webhook listen`: a ready receiver for development and CI. Needs no database or config,
 * so it does not go through act().
 */
export function registerWebhookListen(webhook: Command, io: Io): void {
  webhook
    .command('listen')
    .description('run a local receiver that verifies signatures, prints each event and answers 200 { received }')
    .requiredOption('--secret <secret>', 'the signing secret to verify with (svc webhook show --show-secret)')
    .option('--port <port>', 'port to listen on (0 for any free port)', '8787')
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--fail-with <status>', 'answer valid deliveries with this status instead (e.g. 500, 410)')
    .option('--url-template <template>', 'answer publish/update with { url }, e.g. https://blog.example.com/{slug}')
    .action(async (opts: { secret: string; port: string; host: string; failWith?: string; urlTemplate?: string }) => {
      const port = Number(opts.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw usageError(`--port takes a number from 0 to 65535, not "${opts.port}"`);
      const failWith = opts.failWith === undefined ? undefined : Number(opts.failWith);
      if (failWith !== undefined && (!Number.isInteger(failWith) || failWith < 100 || failWith > 599)) throw usageError(`--fail-with takes an HTTP status, not "${opts.failWith}"`);
      if (!opts.secret) throw usageError('--secret must not be empty', 'Print the secret with: svc webhook show --show-secret');
      const server = createReceiver({ secret: opts.secret, failWith, urlTemplate: opts.urlTemplate, onLine: (line) => io.stdout.write(`${line}\n`) });
      await new Promise<void>((resolve, reject) => {
        server.once('error', (err: NodeJS.ErrnoException) => reject(listenError(err, opts.host, port)));
        server.listen(port, opts.host, () => resolve());
      });
      const address = server.address() as AddressInfo;
      io.stdout.write(`Listening for svc webhooks on http://${opts.host}:${address.port}/ (Ctrl-C to stop)\n`);
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          resolve();
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      io.stdout.write('Stopped.\n');
    });
}

/** Listen failures are the user's setup (port taken, unknown host, no permission), not bugs. */
function listenError(err: NodeJS.ErrnoException, host: string, port: number): Error {
  if (err.code === 'EADDRINUSE') return usageError(`Port ${port} is already in use`, 'Pick another with --port (0 for any free port).');
  if (err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN' || err.code === 'EADDRNOTAVAIL') {
    return usageError(`Cannot listen on ${host}: not an address of this machine`, 'Use --host 127.0.0.1 (the default) or 0.0.0.0 for every interface.');
  }
  if (err.code === 'EACCES') return new AppError('listen_failed', 500, `No permission to listen on ${host}:${port}`, { hint: 'Ports below 1024 need privileges; pick another with --port.' });
  return new AppError('listen_failed', 500, `Cannot listen on ${host}:${port}: ${err.message}`);
}
