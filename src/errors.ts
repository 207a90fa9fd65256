/**
 * The one error type of svc. Every layer throws AppError; each edge (HTTP envelope,
 * OAuth, MCP tool result, CLI exit code) renders it once. `expose` follows Koa:
 * only errors below 500 show their message to a client.
 */
export interface AppErrorOptions {
  details?: Record<string, unknown>;
  hint?: string;
  cause?: unknown;
}

export class AppError extends Error {
  readonly code: string;
  readonly status: number;
  readonly details?: Record<string, unknown>;
  /** A second line for people: how to fix it (shown by the CLI). */
  readonly hint?: string;

  constructor(code: string, status: number, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = status;
    this.details = options.details;
    this.hint = options.hint;
  }

  get expose(): boolean {
    return this.status < 500;
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
