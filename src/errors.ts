/**
 * The one error type of svc. Every layer throws AppError; each edge (HTTP envelope,
 * OAuth, MCP tool result, CLI exit code) renders it once. `expose` follows Koa:
 * only errors below 500 show their message to a client.
 */
export interface AppErrorOptions {
  details?: Record<string, unknown>;
  hint?: string;
  cause?: unknown;
  /** Show the message to clients even at 5xx (a dependency that is down is no secret). */
  expose?: boolean;
}

export class AppError extends Error {
  readonly code: string;
  readonly status: number;
  readonly details?: Record<string, unknown>;
  /** A second line for people: how to fix it (shown by the CLI). */
  readonly hint?: string;
  private readonly exposed?: boolean;

  constructor(code: string, status: number, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = status;
    this.details = options.details;
    this.hint = options.hint;
    this.exposed = options.expose;
  }

  get expose(): boolean {
    return this.exposed ?? this.status < 500;
  }
}

export const isAppError = (err: unknown): err is AppError => err instanceof AppError;

export const badRequest = (code: string, message: string, options?: AppErrorOptions) =>
  new AppError(code, 400, message, options);

export const invalidParameter = (name: string, message: string) =>
  new AppError('invalid_parameter', 400, message, { details: { parameter: name } });

export const invalidInput = (message: string, options?: AppErrorOptions) =>
  new AppError('invalid_input', 400, message, options);

export const notFound = (what: string, ref?: string, options?: AppErrorOptions) =>
  new AppError('not_found', 404, ref === undefined ? `${capitalise(what)} not found` : `${capitalise(what)} "${ref}" not found`, options);

export const conflict = (message: string, options?: AppErrorOptions) => new AppError('conflict', 409, message, options);

export const forbidden = (message: string, options?: AppErrorOptions) => new AppError('forbidden', 403, message, options);

export const unauthorized = (code: string, message: string, options?: AppErrorOptions) =>
  new AppError(code, 401, message, options);

/** Wrong command-line usage: the CLI exits 2. */
export const usageError = (message: string, hint?: string) => new AppError('usage', 400, message, { hint });

export const internalError = (message = 'Internal error', cause?: unknown) =>
  new AppError('internal_error', 500, message, { cause });

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

// ---------------------------------------------------------------------------------------------
// The one classifier of dependency failures: a thrown driver error (pg, knex, node-sqlite3,
// ioredis, a Node socket) is either "the dependency cannot serve us now" (a failure class below)
// or something else (a bug, or the client's input). It reads the error's class, never a list of
// single messages: PostgreSQL's SQLSTATE class and severity, Node's socket error codes, SQLite's
// primary result codes, the pool's acquire timeout, ioredis' error names. It lives here, beside
// toAppError, because every edge maps errors through that one function; it imports no driver.
export type FailureClass =
  | 'silent'
  | 'refused'
  | 'unreachable'
  | 'reset'
  | 'terminated'
  | 'too_many_connections'
  | 'starting_or_stopping'
  | 'read_only'
  | 'disk_full'
  | 'authentication_failed'
  | 'database_missing'
  | 'busy'
  | 'io_error'
  | 'corrupt';

/** What a person reads after "the database ..." (or "Redis ..."). */
export const FAILURE_WORDS: Record<FailureClass, string> = {
  silent: 'did not answer in time',
  refused: 'refused the connection',
  unreachable: 'cannot be reached (host unknown or unreachable)',
  reset: 'closed the connection',
  terminated: 'ended the connection (a restart or an administrator)',
  too_many_connections: 'has no connection free (too many connections)',
  starting_or_stopping: 'is starting up or shutting down',
  read_only: 'is read-only',
  disk_full: 'is out of disk space or memory',
  authentication_failed: 'refused svc\'s credentials (authentication failed)',
  database_missing: 'does not exist or cannot be opened',
  busy: 'stayed locked by another process past the busy timeout',
  io_error: 'could not be read or written (I/O error)',
  corrupt: 'is damaged (not a valid database file)',
};

export interface DependencyFailure {
  dependency: 'database' | 'redis';
  failure: FailureClass;
}

type ErrorShape = { code?: unknown; message?: unknown; name?: unknown; severity?: unknown };

/** Node's socket and resolver errors (net, dns), by the failure they mean. */
const SOCKET_CODES: Record<string, FailureClass> = {
  ECONNREFUSED: 'refused',
  ECONNRESET: 'reset',
  EPIPE: 'reset',
  ECONNABORTED: 'reset',
  ETIMEDOUT: 'silent',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  EHOSTDOWN: 'unreachable',
  ENOTFOUND: 'unreachable',
  EAI_AGAIN: 'unreachable',
  EAI_FAIL: 'unreachable',
};

/** SQLite's primary result codes (node-sqlite3 puts them in `code`). */
const SQLITE_CODES: Record<string, FailureClass> = {
  SQLITE_BUSY: 'busy',
  SQLITE_LOCKED: 'busy',
  SQLITE_READONLY: 'read_only',
  SQLITE_FULL: 'disk_full',
  SQLITE_IOERR: 'io_error',
  SQLITE_CANTOPEN: 'database_missing',
  SQLITE_PERM: 'database_missing',
  SQLITE_CORRUPT: 'corrupt',
  SQLITE_NOTADB: 'corrupt',
};

/** pg's and pg-pool's own words for a connection that ended or never came (they carry no code). */
const PG_CONNECTION_MESSAGES: Array<[RegExp, FailureClass]> = [
  [/Connection terminated due to connection timeout|timeout expired|Query read timeout/, 'silent'],
  [/Connection terminated|Connection ended unexpectedly|Client has encountered a connection error|Client was closed and is not queryable/, 'reset'],
];

/** ioredis: commands refused while disconnected, out of retries, or past commandTimeout. */
const REDIS_MESSAGES: Array<[RegExp, FailureClass]> = [
  [/^Command timed out/, 'silent'],
  [/^Connection is closed|^Stream isn't writeable|Reached the max retries per request/, 'reset'],
];

function pgSqlState(code: string, severity: unknown): FailureClass | null {
  if (code.startsWith('08')) return 'reset'; // connection exception
  if (code === '53300') return 'too_many_connections';
  if (code.startsWith('53')) return 'disk_full'; // insufficient resources: disk full, out of memory, a configured limit
  if (code === '57P01' || code === '57P02') return 'terminated'; // admin shutdown, crash shutdown
  if (code === '57P03' || code === '57P04' || code === '57P05') return 'starting_or_stopping'; // cannot connect now
  if (code === '57014') return 'silent'; // statement_timeout
  if (code.startsWith('28')) return 'authentication_failed';
  if (code === '3D000') return 'database_missing';
  if (code === '25006') return 'read_only';
  // FATAL or PANIC ends the session: whatever the SQLSTATE (55000 "not currently accepting
  // connections" after ALTER DATABASE ... ALLOW_CONNECTIONS false), the server will not serve us now.
  if (severity === 'FATAL' || severity === 'PANIC') return 'refused';
  return null;
}

/** The failure class of `err`, or null when it is not a dependency failure. */
export function classifyDependencyError(err: unknown): DependencyFailure | null {
  if (!err || typeof err !== 'object') return null;
  const e = err as ErrorShape;
  const code = typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : '';
  const name = typeof e.name === 'string' ? e.name : '';
  if (name === 'MaxRetriesPerRequestError') return { dependency: 'redis', failure: 'reset' };
  if (name === 'ReplyError' || name === 'RedisError') {
    const redis = REDIS_MESSAGES.find(([re]) => re.test(message));
    return redis ? { dependency: 'redis', failure: redis[1] } : null;
  }
  if (name === 'KnexTimeoutError') return { dependency: 'database', failure: 'silent' };
  if (SQLITE_CODES[code]) return { dependency: 'database', failure: SQLITE_CODES[code] };
  if (/^[0-9A-Z]{5}$/.test(code)) {
    const failure = pgSqlState(code, e.severity);
    if (failure) return { dependency: 'database', failure };
  }
  if (SOCKET_CODES[code]) return { dependency: 'database', failure: SOCKET_CODES[code] };
  const pg = PG_CONNECTION_MESSAGES.find(([re]) => re.test(message));
  if (pg) return { dependency: 'database', failure: pg[1] };
  const redis = REDIS_MESSAGES.find(([re]) => re.test(message));
  if (redis) return { dependency: 'redis', failure: redis[1] };
  return null;
}

/** Seconds a client is asked to wait (Retry-After) when a dependency is down. */
export const UNAVAILABLE_RETRY_SECONDS = 5;

/**
 * A dependency (the database, Redis) cannot serve now: 503 `unavailable` with Retry-After, the
 * message naming it, on every surface (content API, API, MCP, CLI). `failure` is its class
 * (lib/dependency-errors.ts), shown to clients beside the dependency.
 */
export const unavailable = (dependency: string, message: string, options: { cause?: unknown; hint?: string; failure?: FailureClass } = {}) =>
  new AppError('unavailable', 503, message, {
    expose: true,
    cause: options.cause,
    hint: options.hint,
    details: { dependency, ...(options.failure ? { failure: options.failure } : {}), retryAfterSeconds: UNAVAILABLE_RETRY_SECONDS },
  });

/**
 * A driver error of a dependency that cannot serve now, as the AppError every edge renders. A
 * damaged SQLite file is not a wait-and-retry outage: `database_corrupt`, 503 without Retry-After,
 * pointing to a backup. The driver's own words (they may name internal hosts) go to the
 * operator's hint only.
 */
function dependencyError(found: DependencyFailure, err: unknown): AppError {
  const name = found.dependency === 'redis' ? 'Redis' : 'The database';
  const driver = `${found.dependency === 'redis' ? 'Redis' : 'database driver'}: ${String((err as { message?: unknown }).message ?? (err as { code?: unknown }).code).split('\n')[0]}`;
  if (found.failure === 'corrupt') {
    return new AppError('database_corrupt', 503, `${name} ${FAILURE_WORDS.corrupt}; svc cannot serve from it`, {
      expose: true,
      cause: err,
      details: { dependency: found.dependency, failure: found.failure },
      hint: `${driver}; restore the latest backup (svc restore), or check the disk`,
    });
  }
  return unavailable(found.dependency, `${name} ${FAILURE_WORDS[found.failure]}; try again in a moment`, { cause: err, hint: driver, failure: found.failure });
}

/** PostgreSQL refuses text it cannot store (a NUL character): the client's input, not our bug. */
const PG_BAD_TEXT = new Set(['22021', '22P05']);

/**
 * PostgreSQL refusing a value that does not fit its column: too long for a varchar (22001), a
 * number out of range (22003), malformed for its type (22P02, 22007, 22008), too big for an index
 * (54000). Inputs are checked against the columns before they get here, naming the field; this
 * keeps anything that slips through a 400 rather than a 500.
 */
function pgValueRefused(e: { code?: unknown; message?: string }): string | null {
  const max = /character varying\((\d+)\)/.exec(e.message ?? '')?.[1];
  switch (e.code) {
    case '22001':
      return max ? `A text value is too long: this field holds at most ${max} characters` : 'A text value is too long for its field';
    case '22003':
      return 'A number is out of range for its field';
    case '22P02':
    case '22007':
    case '22008':
      return 'A value is not in the form its field needs';
    case '54000':
      return 'A value is too large to be stored';
    default:
      return null;
  }
}

/**
 * The one classifier for thrown errors, used by every surface's renderer (API envelope, content
 * API, OAuth, pages, MCP): AppErrors as they are, client errors with a 4xx, the rest a 500.
 */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = err as { status?: number; statusCode?: number; expose?: boolean; message?: string; type?: string; code?: unknown; name?: string } | null;
  const down = classifyDependencyError(err);
  if (down) return dependencyError(down, err);
  if (typeof e?.code === 'string' && PG_BAD_TEXT.has(e.code)) {
    return new AppError('invalid_input', 400, 'Text may not contain the NUL character (U+0000)', { cause: err });
  }
  const refused = e ? pgValueRefused(e) : null;
  if (refused) return new AppError('invalid_input', 400, refused, { cause: err });
  const status = e?.status ?? e?.statusCode;
  // Client errors from Koa and its middleware (e.g. @koa/bodyparser on malformed JSON) are the
  // client's fault even when not marked `expose`: answer their status, with our own wording then.
  if (status && status >= 400 && status < 500) {
    const code = status === 413 ? 'payload_too_large' : status === 415 ? 'unsupported_media_type' : status === 400 ? 'invalid_body' : 'bad_request';
    const fallback = status === 400 ? 'The request body could not be parsed' : 'Bad request';
    return new AppError(code, status, e?.expose && e.message ? e.message : fallback);
  }
  return new AppError('internal_error', 500, 'Internal error', { cause: err });
}
