import type { Readable, Writable } from 'node:stream';
import stringWidth from 'string-width';
import { escapeControl, escapeJson } from './terminal-text.js';

/** Everything a command may touch of the outside world; injected so tests run in-process. */
export interface Io {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable;
  /** True only when a person can answer prompts (stdin is a terminal and not CI). */
  interactive: boolean;
  env: Record<string, string | undefined>;
  cwd: string;
}

export function processIo(): Io {
  const env = process.env;
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    interactive: Boolean(process.stdin.isTTY) && !env.CI,
    env,
    cwd: process.cwd(),
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
      io.stderr.write(escapeControl(text).replace(/\n?$/, '\n'));
    },
  };
}

/** The widest a table cell is shown, in terminal columns; longer values end in "…" (--json has them whole). */
export const MAX_CELL_WIDTH = 40;

/**
 * Columns for list output, aligned by display width (issue 13): a CJK character or an emoji takes
 * two terminal columns, a combining mark none. Values from elsewhere have their control
 * characters escaped, and a cell wider than MAX_CELL_WIDTH is cut at a whole character.
 */
export function table<T extends object>(items: T[], columns: string[]): string {
  const rows = items as unknown as Array<Record<string, unknown>>;
  if (rows.length === 0) return '(none)';
  const cell = (v: unknown) => fit(v === null || v === undefined ? '-' : Array.isArray(v) ? v.join(',') : String(v));
  const cells = [columns.map((c) => c.toUpperCase()), ...rows.map((r) => columns.map((c) => cell(r[c])))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => stringWidth(line[i]))));
  const line = (vals: string[]) => vals.map((v, i) => v + ' '.repeat(widths[i] - stringWidth(v))).join('  ').trimEnd();
  return cells.map(line).join('\n');
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** One line of at most MAX_CELL_WIDTH columns: controls escaped, line breaks as spaces, "…" where cut. */
function fit(value: string): string {
  const text = escapeControl(value.replace(/[\t\n]+/g, ' '));
  if (stringWidth(text) <= MAX_CELL_WIDTH) return text;
  let out = '';
  let width = 0;
  for (const { segment } of graphemes.segment(text)) {
    const w = stringWidth(segment);
    if (width + w > MAX_CELL_WIDTH - 1) break;
    out += segment;
    width += w;
  }
  return `${out}…`;
}
