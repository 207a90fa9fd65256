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

/** Seconds a client is asked to wait (Retry-After) when a dependency is down. */
export const UNAVAILABLE_RETRY_SECONDS = 5;

/**
 * A dependency (the database) did not answer in time or cannot be reached: 503 `unavailable`
 * with Retry-After, the message naming it, on every surface (content API, API, MCP, CLI).
 */
export const unavailable = (dependency: string, message: string, options: { cause?: unknown; hint?: string } = {}) =>
  new AppError('unavailable', 503, message, { expose: true, ...options, details: { dependency, retryAfterSeconds: UNAVAILABLE_RETRY_SECONDS } });

// Driver errors that mean "the database cannot be reached or did not answer in time", not a bug:
// pg's client-side deadlines (query_timeout, connectionTimeoutMillis), a server gone or shutting
// down (57P01-57P03), connection failures (class 08), statement_timeout (57014), knex's pool wait
// (KnexTimeoutError), socket errors, and SQLite's busy wait running out.
const DB_DOWN_MESSAGES = /^(Query read timeout|Connection terminated|timeout expired|Client has encountered a connection error|Connection terminated due to connection timeout)/;
const DB_DOWN_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'EAI_AGAIN', '57P01', '57P02', '57P03', '57014', 'SQLITE_BUSY']);

function databaseDown(e: { code?: unknown; message?: string; name?: string }): boolean {
  if (e.name === 'KnexTimeoutError') return true;
  if (typeof e.code === 'string' && (DB_DOWN_CODES.has(e.code) || e.code.startsWith('08'))) return true;
  return DB_DOWN_MESSAGES.test(e.message ?? '');
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
  if (e && databaseDown(e)) {
    // The driver's words (they may name internal addresses) go to the operator's hint only.
    return unavailable('database', 'The database did not answer in time or cannot be reached; try again in a moment', {
      cause: err,
      hint: `database driver: ${(e.message ?? String(e.code)).split('\n')[0]}`,
    });
  }
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
