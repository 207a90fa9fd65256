import type { IncomingMessage } from 'node:http';
import type { Config } from '../config/schema.js';
import { AppError } from '../errors.js';
import { requireIdentityEncoding } from '../lib/content-encoding.js';
import { nestsDeeperThan } from '../lib/json-depth.js';
import type { replyIds } from './messages.js';
import { REFUSED } from './rpc-error.js';

// HTTP-level pieces of /api/mcp: Origin and CORS, body, JSON-RPC error bodies.

export const MCP_PATH = '/api/mcp';

/** The parts of Koa's context used here (Koa itself is imported only by endpoint.ts). */
export interface HttpContext {
  req: IncomingMessage;
  status: number;
  type: string;
  body: unknown;
  get(field: string): string;
  set(field: string, value: string): void;
  vary(field: string): void;
  is(...types: string[]): string | false | null;
}

/** Our own origin plus config.server.allowedOrigins (exact `scheme://host[:port]` matches). */
export function originPolicy(config: Config): (origin: string) => boolean {
  const allowed = new Set([new URL(config.server.baseUrl).origin, ...config.server.allowedOrigins.map(normaliseOrigin)]);
  return (origin) => allowed.has(normaliseOrigin(origin));
}

function normaliseOrigin(origin: string): string {
  try {
    return new URL(origin).origin;
  } catch {
    return origin;
  }
}

/** CORS for browser-based MCP clients, on every answer (401s included) to an allowed origin. */
export function setCors(ctx: HttpContext, origin: string): void {
  ctx.set('Access-Control-Allow-Origin', origin);
  ctx.vary('Origin');
  ctx.set('Access-Control-Expose-Headers', 'WWW-Authenticate, Mcp-Session-Id, Mcp-Protocol-Version, Retry-After');
}

export function setPreflight(ctx: HttpContext): void {
  ctx.set('Access-Control-Allow-Methods', 'POST, GET, DELETE, OPTIONS');
  ctx.set('Access-Control-Allow-Headers', 'Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID');
  ctx.set('Access-Control-Max-Age', '86400');
}

/**
 * A JSON-RPC error answer with an HTTP status (refusals of the whole POST, decisions.md): one
 * error, to `to` as replyIds (messages.ts) reads it (the request's id, or null).
 */
export function rpcError(ctx: HttpContext, status: number, message: string, opts: { rpcCode?: number; to?: ReturnType<typeof replyIds>; code?: string; details?: Record<string, unknown> } = {}): void {
  const error = { code: opts.rpcCode ?? REFUSED, message, ...(opts.code ? { data: { code: opts.code, ...opts.details } } : {}) };
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.body = { jsonrpc: '2.0', error, id: opts.to ?? null };
}

/** The body, read up to a limit, and what is wrong with it (a 415, 413 or parse error) if anything. */
export interface PostBody {
  /** The parsed JSON, also when the Content-Type was wrong (so a refusal can echo its id). */
  value?: unknown;
  problem?: AppError;
}

/**
 * Read and parse the body with a size limit and a nesting limit (only once the caller is known
 * and charged). The depth is checked on the raw bytes before parsing (a too-deep body is never
 * parsed: 400 nesting_too_deep). A bad body is returned, not thrown, with the value when it
 * parsed, so a 415 can still echo the request id. Throws only when the client goes away
 * mid-body (400 request_aborted).
 */
export async function readJsonBody(ctx: HttpContext, limitBytes: number, maxDepth: number): Promise<PostBody> {
  const tooLarge = () => new AppError('payload_too_large', 413, `Request body is larger than ${limitBytes} bytes`);
  try {
    requireIdentityEncoding(ctx); // a compressed body is never inflated (why: lib/content-encoding.ts)
  } catch (err) {
    ctx.set('Connection', 'close');
    return { problem: err as AppError };
  }
  if (Number(ctx.get('Content-Length') || 0) > limitBytes) {
    ctx.set('Connection', 'close'); // not worth reading
    return { problem: tooLarge() };
  }
  const chunks = await readUpTo(ctx, limitBytes);
  if (!chunks) return { problem: tooLarge() };
  const bytes = Buffer.concat(chunks);
  if (nestsDeeperThan(bytes, maxDepth)) {
    return { problem: new AppError('nesting_too_deep', 400, `Invalid Request: the body nests arrays and objects more than ${maxDepth} levels deep; no MCP message needs that many`) };
  }
  let value: unknown;
  let parsed = true;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    parsed = false;
  }
  if (!ctx.is('application/json')) return { value, problem: new AppError('unsupported_media_type', 415, 'Content-Type must be application/json') };
  if (!parsed) return { problem: new AppError('parse_error', 400, 'Parse error: the body is not valid JSON') };
  return { value };
}

/**
 * The body's chunks, or null past the limit: then the rest is discarded and the connection
 * closed after the answer (destroying the request would lose the 413 with the socket).
 */
function readUpTo(ctx: HttpContext, limitBytes: number): Promise<Buffer[] | null> {
  const req = ctx.req;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limitBytes) return void chunks.push(chunk);
      req.off('data', onData).off('end', onEnd); // onError stays: a late error after resolve is a no-op
      ctx.set('Connection', 'close');
      req.resume();
      resolve(null);
    };
    const onEnd = () => resolve(chunks);
    // A client that goes away mid-body is not our error (nobody reads the answer anyway).
    const onError = () => reject(new AppError('request_aborted', 400, 'The request body was not received completely'));
    req.on('data', onData).once('end', onEnd).once('error', onError);
  });
}
