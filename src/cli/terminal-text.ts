// Text that came from elsewhere (a webhook receiver's answer, a provider's error, a host name
// read from the database) must not drive the terminal it is printed on: an ESC sequence can
// clear the screen, retitle the window or write the clipboard (OSC 52), a CR can overwrite the
// line before it, and bidirectional overrides can make text read differently than it is.

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

// C0 controls, DEL, C1 controls, and the invisible bidi and direction marks (Trojan Source).
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * The text with every control character written as a visible escape (`\n`, `\x1b`, `\u202e`),
 * so it prints as one inert run of characters. Everything else, including non-Latin scripts and
 * emoji, is kept as it is.
 */
export function escapeControl(text: string): string {
  return text.replace(CONTROL, (c) => {
    const code = c.charCodeAt(0);
    return NAMED[c] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
  });
}
