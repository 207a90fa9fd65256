// Text that came from elsewhere (imported titles, receiver answers, provider errors) is printed
// with its control characters escaped (issues 11 and 13): a terminal would otherwise obey them,
// and a hostile title or receiver could clear the screen, move the cursor, set the clipboard
// (OSC 52) or reverse the order of what is shown (bidirectional overrides).
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** `text` with control characters (all but tab and newline) and bidi controls shown as \xNN or \uNNNN escapes. */
export function escapeControl(text: string): string {
  return text.replace(CONTROL, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
