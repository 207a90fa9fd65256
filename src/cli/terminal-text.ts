// Text that came from elsewhere (imported titles, a webhook receiver's answer, a provider's
// error, a host name read from the database) must not drive the terminal
// it is printed on: an ESC sequence can clear the screen, retitle the window or write the
// clipboard (OSC 52), a CR can overwrite the line before it, and bidirectional overrides can
// make text read differently than it is (Trojan Source).

import { redactSecrets } from '../lib/redact.js';

// C0 controls but tab and newline, DEL, C1 controls, and the invisible bidi and direction marks.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const LINE_BREAKS = /[\t\n]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

const visible = (c: string): string => {
  const code = c.charCodeAt(0);
  return NAMED[c] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
};

/**
 * The text with every control character but tab and newline written as a visible escape (`\r`,
 * `\x1b`, `\u202e`), for output of several lines. Everything else, non-Latin scripts and emoji
 * included, is kept; escaping twice changes nothing.
 */
export function escapeControl(text: string): string {
  return text.replace(CONTROL, visible);
}

/** The same, with tab and newline escaped too: one inert run on one line (a receiver's answer). */
export function escapeLine(text: string): string {
  return escapeControl(text).replace(LINE_BREAKS, visible);
}

// What JSON.stringify leaves raw that a terminal may still act on: DEL, C1 controls and the
// bidi marks (C0 controls it escapes itself).
const JSON_RAW = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON text (from JSON.stringify) with those characters written as `\uXXXX` escapes: the same
 * JSON value for a program reading `--json`, inert on a terminal. They can only occur inside
 * strings, where the escape means the same character.
 */
export function escapeJson(json: string): string {
  return json.replace(JSON_RAW, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** An error for `--json` on stdout: escaped like any JSON output, and without an issued secret it quotes. */
export function errorJson(value: unknown): string {
  return redactSecrets(escapeJson(JSON.stringify(value, null, 2)));
}

const SGR = { red: ['\x1b[31m', '\x1b[39m'], yellow: ['\x1b[33m', '\x1b[39m'], bold: ['\x1b[1m', '\x1b[22m'] } as const;

/**
 * The `error:` / `warning:` prefix of a line for people, in red / yellow when `colour` (a
 * terminal that supports it, no NO_COLOR: lib/log.ts colourFor). Only svc's own prefix is
 * coloured; the text after it is printed as it is (already escaped by the caller), issued secrets
 * redacted (lib/redact.ts).
 */
export function labelled(text: string, colour: boolean): string {
  // What goes to stderr may quote an issued secret (a pasted key in an error): never printed.
  const safe = redactSecrets(text);
  if (!colour) return safe;
  return safe.replace(/^(error|warning|note):/gm, (label, word: string) => {
    const [on, off] = word === 'error' ? SGR.red : SGR.yellow;
    return `${SGR.bold[0]}${on}${label}${off}${SGR.bold[1]}`;
  });
}
