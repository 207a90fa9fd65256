import type { Readable, Writable } from 'node:stream';
import stringWidth from 'string-width';
import { colourFor } from '../lib/log.js';
import { escapeControl, escapeJson, labelled } from './terminal-text.js';

/** Everything a command may touch of the outside world; injected so tests run in-process. */
export interface Io {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable;
  /** True only when a person can answer prompts (stdin is a terminal and not CI). */
  interactive: boolean;
  /** Progress bars are drawn: stderr, where they go, is a terminal (and not CI). */
  progress?: boolean;
  env: Record<string, string | undefined>;
  cwd: string;
  /** `error:` and `warning:` in colour on stderr (a terminal that supports it, no NO_COLOR). */
  colour?: boolean;
  /** --json was given: nothing for people on stderr (no notes, no progress bar). */
  json?: boolean;
}

export function processIo(): Io {
  const env = process.env;
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    interactive: Boolean(process.stdin.isTTY) && !env.CI,
    progress: Boolean(process.stderr.isTTY) && !env.CI,
    env,
    cwd: process.cwd(),
    colour: colourFor(Boolean(process.stderr.isTTY), env),
  };
}

export interface Output {
  json: boolean;
  /** Print a result: JSON when --json, else the human text. */
  result(value: unknown, human: () => string): void;
  /** A note for people on stderr (never mixed into --json stdout). */
  note(text: string): void;
}

/**
 * Human text is printed with control characters escaped: much of it came from elsewhere (titles
 * from imports, receiver answers); JSON output has the ones JSON.stringify leaves raw escaped.
 */
export function output(io: Io, json: boolean): Output {
  return {
    json,
    result(value, human) {
      io.stdout.write(json ? escapeJson(JSON.stringify(value, null, 2)) + '\n' : escapeControl(human()).replace(/\n?$/, '\n'));
    },
    note(text) {
      // With --json the result carries what matters; stderr stays empty for the script.
      if (json) return;
      io.stderr.write(labelled(escapeControl(text).replace(/\n?$/, '\n'), Boolean(io.colour)));
    },
  };
}

/** The widest a table cell is shown, in terminal columns; longer values end in "…" (--json has them whole). */
export const MAX_CELL_WIDTH = 40;

/**
 * Columns for list output, aligned by display width, not length: a CJK character or an emoji takes
 * two terminal columns, a combining mark none. Values from elsewhere have their control
 * characters escaped, and a cell wider than MAX_CELL_WIDTH is cut at a whole character.
 */
export function table<T extends object>(items: T[], columns: string[]): string {
  const rows = items as unknown as Array<Record<string, unknown>>;
  if (rows.length === 0) return '(none)';
  const cell = (v: unknown) => fit(v === null || v === undefined ? '-' : Array.isArray(v) ? v.join(',') : String(v));
  const cells = [columns.map(header), ...rows.map((r) => columns.map((c) => cell(r[c])))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => stringWidth(line[i]))));
  const line = (vals: string[]) => vals.map((v, i) => v + ' '.repeat(widths[i] - stringWidth(v))).join('  ').trimEnd();
  return cells.map(line).join('\n');
}

/** Column names as words: `contentType` is CONTENT TYPE, `lastUsedAt` LAST USED. */
const HEADERS: Record<string, string> = { lastUsedAt: 'last used', scheduledAt: 'scheduled for (utc)', when: 'when (utc)' };
export function header(column: string): string {
  return (HEADERS[column] ?? column.replace(/([a-z0-9])([A-Z])/g, '$1 $2')).toUpperCase();
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** One line of at most `max` columns: controls escaped, line breaks as spaces, "…" where cut. */
export function fit(value: string, max = MAX_CELL_WIDTH): string {
  const text = escapeControl(value.replace(/[\t\n]+/g, ' '));
  if (stringWidth(text) <= max) return text;
  let out = '';
  let width = 0;
  for (const { segment } of graphemes.segment(text)) {
    const w = stringWidth(segment);
    if (width + w > max - 1) break;
    out += segment;
    width += w;
  }
  return `${out}…`;
}
