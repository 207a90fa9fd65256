import { createRequire } from 'node:module';
import { isatty } from 'node:tty';
import pino from 'pino';
import type PinoPretty from 'pino-pretty';
import { REDACTED, redactSecrets } from './redact.js';

export type Logger = pino.Logger;

/**
 * Log lines on stderr (stdout belongs to command output). Keys and tokens are redacted (fields
 * by name, and every secret svc issues wherever it appears: lib/redact.ts). On a
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
    // Every line, whatever field or message carries it (an error's message or stack, a URL, a
    // body quoted in a warning): the issued secrets are taken out of the written text itself.
    hooks: { streamWrite: redactSecrets },
  };
  const terminal = typeof destination === 'number' ? isatty(destination) : Boolean((destination as { isTTY?: boolean }).isTTY);
  if (!terminal) return pino(options, typeof destination === 'number' ? stream : backlogBounded(destination));
  // Loaded only for a terminal: every CLI command creates a logger, and most never draw on one.
  const { prettyFactory } = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
  const pretty = prettyFactory({ colorize: Boolean(opts.colour), translateTime: 'SYS:yyyy-mm-dd HH:MM:ss.l', ignore: 'pid,hostname', singleLine: false });
  return pino(options, { write: (line: string) => stream.write(pretty(line)) });
}

/** Log bytes a stream may hold unwritten before lines are dropped. */
const LOG_BACKLOG_BYTES = 1 << 20;

/**
 * A pipe is written asynchronously: one whose reader stalls (a log shipper that hangs) would hold
 * every line in memory for as long as the daemon serves. Past LOG_BACKLOG_BYTES waiting, lines
 * are dropped; the first line written once the reader catches up is a warning saying how many.
 */
function backlogBounded(stream: NodeJS.WritableStream): { write(line: string): void } {
  const waiting = () => (stream as { writableLength?: number }).writableLength ?? 0;
  let dropped = 0;
  return {
    write(line) {
      if (waiting() > LOG_BACKLOG_BYTES) {
        dropped++;
        return;
      }
      if (dropped > 0) {
        stream.write(`${JSON.stringify({ level: 40, time: Date.now(), msg: `${dropped} log lines dropped: the log's reader did not keep up` })}\n`);
        dropped = 0;
      }
      stream.write(line);
    },
  };
}

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
