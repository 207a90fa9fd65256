/**
 * Whether JSON text nests arrays and objects deeper than `max`, found by one pass over the raw
 * bytes (brackets counted outside strings) without parsing: a body of millions of `[` costs a
 * parser seconds and the scan a few milliseconds. Bytes of multi-byte UTF-8 characters are all
 * 0x80 or above, so they never look like a bracket, a quote or a backslash. Malformed text is
 * left for the parser to refuse.
 */
export function nestsDeeperThan(bytes: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (inString) {
      if (b === BACKSLASH) i++; // the escaped character is never a closing quote
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) inString = true;
    else if (b === OPEN_ARRAY || b === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if (b === CLOSE_ARRAY || b === CLOSE_OBJECT) depth--;
  }
  return false;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
