import { createRequire } from 'node:module';
import { isatty } from 'node:tty';
import pino from 'pino';
import type PinoPretty from 'pino-pretty';

export type Logger = pino.Logger;

/**
 * Log lines on stderr (stdout belongs to command output). Keys and tokens are redacted. On a
 * terminal, one human line per entry (local time, level, message, then the fields); anywhere
 * else (journald, a pipe, a file) one JSON object per line with epoch-millisecond times, for
 * machines. `colour`: the caller's colourFor (Io.colour), so NO_COLOR is respected (no-color.org).
 */
export function createLogger(level: string, destination: NodeJS.WritableStream | number = 2, opts: { colour?: boolean } = {}): Logger {
  const stream = typeof destination === 'number' ? pino.destination({ fd: destination, sync: true }) : destination;
  const options: pino.LoggerOptions = {
    level,
    base: undefined,
    redact: { paths: REDACTED_PATHS, censor: REDACTED },
    serializers: { err: errWithoutRowValues },
  };
  const terminal = typeof destination === 'number' ? isatty(destination) : Boolean((destination as { isTTY?: boolean }).isTTY);
  if (!terminal) return pino(options, stream);
  // Loaded only for a terminal: every CLI command creates a logger, and most never draw on one.
  const { prettyFactory } = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
  const pretty = prettyFactory({ colorize: Boolean(opts.colour), translateTime: 'SYS:yyyy-mm-dd HH:MM:ss.l', ignore: 'pid,hostname', singleLine: false });
  return pino(options, { write: (line: string) => stream.write(pretty(line)) });
}

const REDACTED = '[redacted]';
// Credential fields by name at the top of a line (pino's `*.x` does not match a top-level `x`),
// and the commonest one level down. A top-level path costs next to nothing; each `*.x` costs
// about 1.5 us on every line, the request log's included (docs/performance.md), so no more of them.
const SECRET_FIELDS = ['password', 'key', 'token', 'secret', 'apiKey', 'accessToken', 'refreshToken', 'clientSecret'];
const REDACTED_PATHS = ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie', ...SECRET_FIELDS, '*.password', '*.key', '*.token'];

/**
 * pino's error serialiser, without the row values a database error carries: PostgreSQL's
 * `detail` quotes the conflicting row (`Key (email)=(ann@example.com) already exists.`, a key
 * hash), and the serialiser copies every field of an error. The message, code, table and
 * constraint stay: they say what failed without saying whose.
 */
function errWithoutRowValues(err: unknown): unknown {
  const out = pino.stdSerializers.err(err as Error) as unknown;
  if (out !== err) scrubDetail(out as Record<string, unknown>, Object.getPrototypeOf(out));
  return out;
}

/** Only the serialiser's own copies are changed (the error itself, and what the caller holds, are not). */
function scrubDetail(copy: Record<string, unknown>, proto: unknown): void {
  if (typeof copy.detail === 'string') copy.detail = REDACTED;
  // Nested errors (`aggregateErrors`, an error in a field) are copies of the same kind.
  for (const value of Object.values(copy)) {
    for (const inner of Array.isArray(value) ? value : [value]) {
      if (inner && typeof inner === 'object' && Object.getPrototypeOf(inner) === proto) scrubDetail(inner as Record<string, unknown>, proto);
    }
  }
}

/** Colour on a terminal unless NO_COLOR (any value) or TERM=dumb; FORCE_COLOR (not 0) asks for it anywhere. */
export function colourFor(terminal: boolean, env: Record<string, string | undefined>): boolean {
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '') return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  return terminal && env.TERM !== 'dumb';
}

// Query parameters that carry credentials, compared after decoding (`%6Bey` is `key`).
const SECRET_PARAMS = new Set(['key', 'api_key', 'apikey', 'token', 'access_token', 'refresh_token', 'id_token', 'code', 'code_verifier', 'client_secret', 'password', 'secret']);
// Credentials svc issues, recognisable by their prefix wherever they appear (path or query).
const SECRET_VALUE = /(svc_(blog|api)_|whsec_)[a-z0-9]/i;

/**
 * Remove credentials from a request URL before it is logged. The server reads a parameter after
 * percent-decoding it, so the check is made on the decoded name (`?%6Bey=svc_blog_...` is the
 * key parameter), and any part that decodes to one of svc's key formats is removed too.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  const path = (q === -1 ? url : url.slice(0, q))
    .split('/')
    .map((segment) => (SECRET_VALUE.test(decoded(segment)) ? '[redacted]' : segment))
    .join('/');
  if (q === -1) return path;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      const name = eq === -1 ? part : part.slice(0, eq);
      const plainName = decoded(name).trim().toLowerCase().replace(/\[[^\]]*\]$/, '');
      if (SECRET_VALUE.test(decoded(name))) return '[redacted]';
      if (SECRET_PARAMS.has(plainName) || SECRET_VALUE.test(decoded(part))) return eq === -1 ? part : `${name}=[redacted]`;
      return part;
    })
    .join('&');
  return `${path}?${query}`;
}

/** Percent-decoded (and `+` as a space), repeatedly, so double encoding hides nothing. */
function decoded(text: string): string {
  let out = text.replace(/\+/g, ' ');
  for (let i = 0; i < 3 && out.includes('%'); i++) {
    try {
      out = decodeURIComponent(out);
    } catch {
      break;
    }
  }
  return out;
}
