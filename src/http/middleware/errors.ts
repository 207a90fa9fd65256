import type { Middleware } from 'koa';
import { AppError } from '../../errors.js';
import type { App } from '../../app.js';

/**
 * The API error envelope `{ error: { code, message, ...details } }`. AppErrors keep their status;
 * Koa/http-errors with `expose` (bad JSON, body too large) keep theirs; anything else is a bug:
 * logged with its stack and answered as a 500 internal_error without details.
 */
export function apiErrors(app: App): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const e = toAppError(err);
      if (e.status >= 500) app.log.error({ err, requestId: ctx.state.requestId }, 'request failed');
      ctx.status = e.status;
      ctx.body = { error: { code: e.code, message: e.expose ? e.message : 'Internal error', ...(e.expose ? e.details : {}) } };
      const retry = e.details?.retryAfterSeconds;
      if (typeof retry === 'number') ctx.set('Retry-After', String(retry));
    }
  };
}

/** PostgreSQL refuses text it cannot store (a NUL character): the client's input, not our bug. */
const PG_BAD_TEXT = new Set(['22021', '22P05']);

/**
 * The one classifier for thrown errors, used by every surface's renderer (API envelope, content
 * API, OAuth, pages, MCP): AppErrors as they are, client errors with a 4xx, the rest a 500.
 */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = err as { status?: number; statusCode?: number; expose?: boolean; message?: string; type?: string; code?: unknown } | null;
  if (typeof e?.code === 'string' && PG_BAD_TEXT.has(e.code)) {
    return new AppError('invalid_input', 400, 'Text may not contain the NUL character (U+0000)', { cause: err });
  }
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
