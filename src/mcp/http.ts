import type { IncomingMessage } from 'node:http';
import type { Config } from '../config/schema.js';
import { AppError } from '../errors.js';
import { requireIdentityEncoding } from '../lib/content-encoding.js';

// HTTP-level pieces of /api/mcp: Origin and CORS, bearer token, body, JSON-RPC error bodies.

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

export function bearerToken(ctx: HttpContext): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('Authorization'));
  return match ? match[1] : null;
}

/** A JSON-RPC error answer with an HTTP status (auth-level refusals, decisions.md). */
export function rpcError(ctx: HttpContext, status: number, message: string, opts: { rpcCode?: number; id?: unknown; code?: string } = {}): void {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.body = {
    jsonrpc: '2.0',
    error: { code: opts.rpcCode ?? -32000, message, ...(opts.code ? { data: { code: opts.code } } : {}) },
    id: opts.id ?? null,
  };
}

/** Read and parse the JSON body with a size limit; AppErrors (413/415/400) on bad bodies. */
export async function readJsonBody(ctx: HttpContext, limitBytes: number): Promise<unknown> {
  if (!ctx.is('application/json')) throw new AppError('unsupported_media_type', 415, 'Content-Type must be application/json');
  requireIdentityEncoding(ctx);
  const declared = Number(ctx.get('Content-Length') || 0);
  if (declared > limitBytes) throw new AppError('payload_too_large', 413, `Request body is larger than ${limitBytes} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limitBytes) throw new AppError('payload_too_large', 413, `Request body is larger than ${limitBytes} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new AppError('parse_error', 400, 'Parse error: the body is not valid JSON');
  }
}

type Message = { method?: unknown; id?: unknown };

/** Whether the body holds at least one JSON-RPC request (notifications and responses do not count as calls). */
export function hasRequest(body: unknown): boolean {
  const messages = (Array.isArray(body) ? body : [body]) as Message[];
  return messages.some((m) => m !== null && typeof m === 'object' && typeof m.method === 'string' && m.id !== undefined && m.id !== null);
}

/** The id to echo in a refusal, when the body is one request. */
export const requestId = (body: unknown): unknown => (body && typeof body === 'object' && !Array.isArray(body) ? ((body as Message).id ?? null) : null);

/**
 * We always answer plain JSON (enableJsonResponse), so a client that accepts only
 * application/json (or sends no Accept) is served too; the SDK transport insists on both types.
 */
export function acceptBoth(req: IncomingMessage): void {
  const accept = req.headers.accept ?? '';
  if (accept.includes('application/json') && accept.includes('text/event-stream')) return;
  const value = 'application/json, text/event-stream';
  const raw = req.rawHeaders;
  const kept: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (raw[i].toLowerCase() !== 'accept') kept.push(raw[i], raw[i + 1]);
  raw.splice(0, raw.length, ...kept, 'Accept', value);
  req.headers.accept = value;
}
