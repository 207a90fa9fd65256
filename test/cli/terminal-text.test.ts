import { describe, expect, it } from 'vitest';
import { escapeControl, escapeLine } from '../../src/cli/terminal-text.js';

describe('escapeControl', () => {
  it('writes every control character as a visible escape', () => {
    expect(escapeControl('\x1b[2J\x1b]52;c;aGk=\x07')).toBe('\\x1b[2J\\x1b]52;c;aGk=\\x07');
    expect(escapeControl('a\r\nb\tc\0d\x7f\x9b')).toBe('a\\r\nb\tc\\x00d\\x7f\\x9b');
    expect(escapeLine('a\r\nb\tc\0d\x7f\x9b')).toBe('a\\r\\nb\\tc\\x00d\\x7f\\x9b');
    expect(escapeControl('abc\u202edcba\u2066x\u200f')).toBe('abc\\u202edcba\\u2066x\\u200f');
  });

  it('keeps ordinary text of any script as it is', () => {
    const text = 'Grüße, 東京, مرحبا, emoji 🎉, quotes "\' and a \\ backslash';
    expect(escapeControl(text)).toBe(text);
  });
});
