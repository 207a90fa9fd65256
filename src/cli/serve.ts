import type { AddressInfo } from 'node:net';
import type { Command } from 'commander';
import type { App } from '../app.js';
import { AppError, usageError } from '../errors.js';
import { type Deadline, deadlineAfter, settleWithin } from '../lib/deadline.js';
import type { Logger } from '../lib/log.js';
import { VERSION } from '../version.js';
import type { HttpServer } from '../http/server.js';
import type { Job } from '../jobs/index.js';
import type { Io } from './io.js';
import { mayCreateDatabase } from './may-create.js';

/** How long a step that ignores the shutdown deadline may run past it before it is left behind. */
const PAST_DEADLINE_MS = 1000;

export function registerServe(program: Command, io: Io): void {
  mayCreateDatabase(program.command('serve', { isDefault: true }))
    .description('run migrations, then serve the content API, the MCP endpoint and the background jobs (default command)')
    .option('--host <host>', 'interface to listen on (SVC_HOST)')
    .option('--port <port>', 'port to listen on, 0 for any free port (SVC_PORT)')
    .action(async (opts: { host?: string; port?: string }, command: Command) => {
      const global = command.optsWithGlobals();
      if (opts.port !== undefined && !/^\d+$/.test(opts.port)) throw usageError(`--port takes a number from 0 to 65535, not "${opts.port}"`);
      // Serve is the default command, so this file loads with every command: the app, the HTTP
      // stack and the jobs load only when it runs.
      const [{ claimDatabase, createApp, recordDaemon }, { configFor, namingDatabase }, { listenAddress }, { createLogger }, { bindServer, createHttpServer }, { startJobs }] = await Promise.all([
        import('../app.js'),
        import('./harness.js'),
        import('../config/schema.js'),
        import('../lib/log.js'),
        import('../http/server.js'),
        import('../jobs/index.js'),
      ]);
      const flags = { 'server.host': opts.host, 'server.port': opts.port === undefined ? undefined : Number(opts.port) };
      let config = configFor(io, global, flags);

      // 1. One daemon per SQLite file (PostgreSQL takes several): refused before the port is touched.
      const claim = await claimDatabase(config);
      // What this daemon serves, in the state directory: the CLI finds it from any directory.
      const unrecord = recordDaemon(config, new Date());
      try {
        // 2. Bind. From here every request gets an answer: 503 `starting` until step 4.
        const server = await bindServer(config.server.port, config.server.host).catch((err) => {
          throw listenError(err, config.server.host, config.server.port);
        });
        const address = server.address() as AddressInfo;
        // With port 0 the default base URL names the port actually bound.
        if (config.server.port === 0) config = configFor(io, global, { ...flags, 'server.port': address.port });
        // What it serves, for the CLI: `svc blog-key` prints this address, not its own guess.
        recordDaemon(config, new Date(), { host: address.address, port: address.port, baseUrl: config.server.baseUrl });
        const log = createLogger(config.logging.level, io.stderr, { colour: io.colour });

        // 3. Migrate (waiting for any other process migrating the same database) and build the app.
        //    A signal before step 4 ends the process at once: migrations run in transactions and
        //    the locks die with the process.
        const app = await createApp({ config, log }).catch((err): never => {
          server.close();
          return namingDatabase(config)(err);
        });

        // 4. Background jobs, then HTTP: ready (/healthz answers 200). Signals are ours from here,
        //    before anyone is told we listen (a signal's default action would kill us mid-line).
        //    The daemon's heartbeat row is written before it serves: a daemon that serves is one the upgrade guard
        //    (svc migrate, db/serving-daemons.ts) sees. A database that cannot take it ends the start.
        const jobs = await startJobs(app).catch(async (err): Promise<never> => {
          await app.close();
          server.close();
          throw firstBeatFailed(err, namingDatabase(config));
        });
        const http = createHttpServer(app, server);
        const metricsAt = await http.metricsAddress.catch(async (err) => {
          await http.close();
          await jobs.stop();
          await app.close();
          const at = listenAddress(config.metrics.listen)!; // the schema accepted it
          throw listenError(err, at.host, at.port, 'SVC_METRICS_LISTEN');
        });
        const signals = stopSignals(log, config.server.shutdownTimeout);
        if (config.unknownEnv.length > 0) {
          log.warn({ variables: config.unknownEnv }, 'ignoring SVC_* variables that name no setting (typo?); see config.example.yaml');
        }
        log.info({ version: VERSION, address: `${address.address}:${address.port}`, baseUrl: config.server.baseUrl, database: config.database.client }, 'svc is serving');
        if (metricsAt) log.info({ address: `${metricsAt.address}:${metricsAt.port}` }, 'metrics listening (GET /metrics)');
        io.stdout.write(`svc ${VERSION} listening on http://${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port} (base URL ${config.server.baseUrl})\n`);

        // 5. SIGTERM or SIGINT: drain within server.shutdownTimeout; a second signal cuts at once.
        try {
          const deadline = await signals.first;
          const outcome = await shutDown({ http, jobs, app, log }, deadline);
          if (!outcome.finished) throw shutdownIncomplete(outcome, config.server.shutdownTimeout, signals.repeated());
          log.info('stopped');
        } finally {
          signals.remove();
        }
      } finally {
        unrecord();
        await claim.release();
      }
    });
}

interface Stopping {
  /** Resolves at the first signal, with the shutdown deadline that started then. */
  first: Promise<Deadline>;
  /** True when a second signal cut the drain short. */
  repeated(): boolean;
  remove(): void;
}

/** One listener for the daemon's whole life, so a second signal never meets the default action. */
function stopSignals(log: Logger, timeoutMs: number): Stopping {
  let deadline: Deadline | undefined;
  let repeated = false;
  let started!: (d: Deadline) => void;
  const first = new Promise<Deadline>((resolve) => (started = resolve));
  const onSignal = (signal: NodeJS.Signals) => {
    if (!deadline) {
      log.info({ signal, deadlineMs: timeoutMs }, 'shutting down: no new requests; finishing in-flight requests and jobs');
      deadline = deadlineAfter(timeoutMs);
      return started(deadline);
    }
    if (repeated || deadline.signal.aborted) return;
    repeated = true;
    log.warn({ signal }, 'second signal: cutting open connections and giving up work in progress now');
    deadline.abort();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return {
    first,
    repeated: () => repeated,
    remove() {
      deadline?.dispose();
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    },
  };
}

interface Outcome {
  finished: boolean;
  requestsCut: number;
  jobsFinished: boolean;
  closed: boolean;
}

/**
 * Requests and jobs drain side by side under one deadline: in-flight requests finish, jobs
 * finish or release what they hold (Job.stop). At the deadline connections are cut; a job or
 * the database pool that ignores it is left behind after a short grace, so the process ends.
 */
async function shutDown(parts: { http: HttpServer; jobs: Job; app: App; log: Logger }, deadline: Deadline): Promise<Outcome> {
  const { signal } = deadline;
  const [{ cut }, jobsFinished] = await Promise.all([
    parts.http.close(signal),
    settleWithin(parts.jobs.stop(signal), signal, PAST_DEADLINE_MS, false),
  ]);
  const closed = await settleWithin(
    parts.app.close().then(() => true),
    signal,
    PAST_DEADLINE_MS,
    false,
  );
  const outcome = { finished: cut === 0 && jobsFinished && closed, requestsCut: cut, jobsFinished, closed };
  if (!outcome.finished) parts.log.warn(outcome, 'stopped at the shutdown deadline: something in progress was cut');
  return outcome;
}

/** Exit 3 (main.ts): the daemon stopped, but not everything in progress finished. */
function shutdownIncomplete(outcome: Outcome, timeoutMs: number, byRepeatedSignal: boolean): AppError {
  const what = [
    outcome.requestsCut > 0 ? `${outcome.requestsCut} request${outcome.requestsCut === 1 ? ' was' : 's were'} cut unanswered` : '',
    outcome.jobsFinished ? '' : 'background work in progress was given up (released for the next start)',
    outcome.closed ? '' : 'database connections still busy were left open',
  ].filter(Boolean);
  const when = byRepeatedSignal ? 'Stopped by a second signal' : `Stopped at the shutdown deadline (${timeoutMs % 1000 === 0 ? `${timeoutMs / 1000}s` : `${timeoutMs}ms`})`;
  return new AppError('shutdown_incomplete', 503, `${when}: ${what.join('; ')}`, {
    hint: 'Raise server.shutdownTimeout (SVC_SERVER_SHUTDOWN_TIMEOUT) if requests or deliveries need longer; keep it below the service manager\'s stop timeout.',
  });
}

/**
 * Exit 1: the daemon's first heartbeat row could not be written, so it does not serve. Said as that write, since the
 * database answered the migration check just before: a database failure keeps its class and hint, any other refusal
 * (a role without INSERT on daemon_heartbeats) is the database's answer, not a bug of svc.
 */
function firstBeatFailed(err: unknown, named: (err: unknown) => never): AppError {
  let e: unknown = err;
  try {
    named(err);
  } catch (thrown) {
    e = thrown;
  }
  const known = e instanceof AppError ? e : undefined;
  return new AppError(known?.code ?? 'heartbeat_failed', known?.status ?? 500, `Cannot serve: this daemon's heartbeat row (daemon_heartbeats), written before it serves so that svc migrate sees it, could not be written: ${(e as Error)?.message ?? String(e)}`, {
    hint: known?.hint ?? 'The database refused the write above: svc serve must be able to write its tables.',
    details: known?.details,
    cause: err,
  });
}

/** Port taken, privileged or an address this host does not have: one line, exit 1. */
function listenError(err: unknown, host: string, port: number, setting = 'SVC_HOST / SVC_PORT (or --host / --port)'): unknown {
  const code = (err as NodeJS.ErrnoException)?.code;
  const reasons: Record<string, string> = {
    EADDRINUSE: 'the port is already in use (is another svc running?)',
    EACCES: 'permission denied (ports below 1024 need privileges)',
    EADDRNOTAVAIL: 'this machine has no such address',
    ENOTFOUND: 'no such host name',
  };
  if (!code || !reasons[code]) return err;
  return new AppError('listen_failed', 500, `Cannot listen on ${host.includes(':') ? `[${host}]` : host}:${port}: ${reasons[code]}`, {
    hint: `Choose another address with ${setting}.`,
    cause: err,
  });
}
