import type { Readable, Writable } from 'node:stream';

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

export function output(io: Io, json: boolean): Output {
  return {
    json,
    result(value, human) {
      io.stdout.write(json ? JSON.stringify(value, null, 2) + '\n' : human().replace(/\n?$/, '\n'));
    },
    note(text) {
      io.stderr.write(text.replace(/\n?$/, '\n'));
    },
  };
}

/** Fixed-width columns for list output. */
export function table<T extends object>(items: T[], columns: string[]): string {
  const rows = items as unknown as Array<Record<string, unknown>>;
  if (rows.length === 0) return '(none)';
  const cell = (v: unknown) => (v === null || v === undefined ? '-' : Array.isArray(v) ? v.join(',') : String(v));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (vals: string[]) => vals.map((v, i) => v.padEnd(widths[i])).join('  ').trimEnd();
  return [line(columns.map((c) => c.toUpperCase())), ...rows.map((r) => line(columns.map((c) => cell(r[c]))))].join('\n');
}
