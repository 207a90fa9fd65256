import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Command } from 'commander';
import { AppError, usageError } from '../errors.js';
import { signatureProblem } from '../webhooks/sign.js';
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

interface ReceiverOptions {
  /** Signing secret(s) to verify against. */
  secret: string | string[];
  /** Answer every valid delivery with this status instead of 200 (to try retries and refusals). */
  failWith?: number;
  /** `https://blog.example.com/{slug}`: answered as `url` on publish/update, so svc records it. */
  urlTemplate?: string;
  toleranceSeconds?: number;
  /** One line per request, for the console. */
  onLine(line: string): void;
}

const MAX_BODY = 10 * 1024 * 1024;

/**
 * The development receiver behind `svc webhook listen`: verifies the signature against the raw
 * body (401 when it does not match), prints the event, and answers at once with
 * `{ received: <delivery id> }` (plus `url` from the template on publish/update).
 */
function createReceiver(opts: ReceiverOptions): http.Server {
  return http.createServer((req, res) => {
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'POST') return answer(405, { error: 'POST webhook deliveries here' });
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > MAX_BODY) return answer(413, { error: 'body too large' });
      const raw = Buffer.concat(chunks);
      const header = req.headers['x-service-signature'];
      const problem = signatureProblem(raw, Array.isArray(header) ? header[0] : header, opts.secret, { toleranceSeconds: opts.toleranceSeconds });
      if (problem) {
        opts.onLine(`${new Date().toISOString()}  REJECTED  bad signature (${problem})`);
        return answer(401, { error: `invalid signature: ${problem}` });
      }
      let payload: { event?: string; deliveryId?: string; eventId?: string; article?: { id?: string; slug?: string | null; title?: string } };
      try {
        payload = JSON.parse(raw.toString('utf8'));
      } catch {
        return answer(400, { error: 'body is not JSON' });
      }
      const a = payload.article ?? {};
      const status = opts.failWith ?? 200;
      opts.onLine(`${new Date().toISOString()}  ${payload.event}  ${a.slug ?? a.id ?? '-'}  delivery=${payload.deliveryId}  event=${payload.eventId ?? '-'}  -> ${status}`);
      if (opts.failWith) return answer(opts.failWith, { error: `svc webhook listen answers ${opts.failWith} (--fail-with)` });
      const body: Record<string, unknown> = { received: payload.deliveryId };
      if (opts.urlTemplate && (payload.event === 'article.published' || payload.event === 'article.updated')) {
        body.url = opts.urlTemplate.replaceAll('{slug}', encodeURIComponent(a.slug ?? '')).replaceAll('{id}', encodeURIComponent(a.id ?? ''));
      }
      answer(200, body);
    });
  });
}
