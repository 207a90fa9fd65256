import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { MAX_CELL_WIDTH, table } from '../../src/cli/io.js';
import { escapeControl } from '../../src/cli/terminal-text.js';
import { initialised } from './sandbox.js';

/** Display column where each cell of a rendered line starts, given the cells' printed text. */
function starts(line: string, cells: string[]): number[] {
  let from = 0;
  return cells.map((cell) => {
    const at = line.indexOf(cell, from);
    expect(at, `${JSON.stringify(cell)} in ${JSON.stringify(line)}`).toBeGreaterThanOrEqual(0);
    from = at + cell.length;
    return stringWidth(line.slice(0, at));
  });
}

describe('CLI tables (issue 13): aligned and cut by display width', () => {
  it('lines up wide CJK characters, combining marks and emoji with ASCII', () => {
    const rows = [
      { slug: 'ascii-only', title: 'Plain', n: 1 },
      { slug: '京都の喫茶店', title: '喫茶店', n: 22 },
      { slug: 'cafe\u0301-cre\u0300me', title: 'Cafe\u0301 ☕ 👩‍👩‍👧', n: 333 },
      { slug: '한국어', title: 'ภาษาไทย', n: 4 },
    ];
    const lines = table(rows, ['slug', 'title', 'n']).split('\n');
    const header = starts(lines[0], ['SLUG', 'TITLE', 'N']);
    rows.forEach((r, i) => expect(starts(lines[i + 1], [r.slug, r.title, String(r.n)])).toEqual(header));
    expect(header).toEqual([0, stringWidth('京都の喫茶店') + 2, stringWidth('京都の喫茶店') + 2 + stringWidth('Cafe\u0301 ☕ 👩‍👩‍👧') + 2]);
  });

  it(`cuts a cell wider than ${MAX_CELL_WIDTH} columns with an ellipsis, at a whole character`, () => {
    const long = { title: '京'.repeat(30), emoji: '👩‍👩‍👧'.repeat(30), accents: 'e\u0301'.repeat(60), id: 'x' };
    const [, row] = table([long], ['title', 'emoji', 'accents', 'id']).split('\n');
    const cells = row.split(/ {2,}/);
    expect(cells[0]).toBe(`${'京'.repeat(19)}…`); // 38 columns + the ellipsis: a 40th column would split a character
    expect(cells[1]).toBe(`${'👩‍👩‍👧'.repeat(19)}…`);
    expect(cells[2]).toBe(`${'e\u0301'.repeat(39)}…`);
    for (const cell of cells) expect(stringWidth(cell)).toBeLessThanOrEqual(MAX_CELL_WIDTH);
    expect(cells[3]).toBe('x');
  });

  it('escapes control characters of values, so a title cannot drive the terminal', () => {
    const evil = 'Hi\u001b]52;c;cm0gLXJmIH4=\u0007\u001b[2J\r\u202eevil';
    expect(escapeControl(evil)).toBe('Hi\\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b[2J\\r\\u202eevil');
    expect(escapeControl('tab\tand\nnewline stay; ä ✓')).toBe('tab\tand\nnewline stay; ä ✓');
    expect(escapeControl(escapeControl(evil)), 'escaping twice changes nothing').toBe(escapeControl(evil));
    const out = table([{ title: evil, next: 'x' }, { title: 'two\nlines', next: 'y' }], ['title', 'next']);
    expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/);
    expect(out.split('\n')).toHaveLength(3);
  });

  it('escapes control characters in everything the CLI prints for people, errors included', async () => {
    const box = await initialised();
    const title = 'Title \u001b[2J\u001b]0;pwned\u0007';
    await box.json(['articles', 'add', '--title', title, '--slug', 'evil']);
    for (const args of [['articles', 'show', 'evil'], ['articles', 'list']]) {
      const r = await box.cli(args);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('Title \\x1b[2J\\x1b]0;pwned\\x07');
      expect(r.stdout).not.toContain('\u001b');
    }
    const missing = await box.cli(['articles', 'show', 'nope\u001b[2J']);
    expect(missing.stderr).toBe('error: Article "nope\\x1b[2J" not found\nhint: List articles with: svc articles list --workspace example.com\n');
    expect((await box.json(['articles', 'show', 'evil'])).title, '--json keeps the text as it is (JSON escapes it)').toBe(title);
  });

  it('--json writes what JSON.stringify leaves raw (C1, DEL, bidi) as \\u escapes: same value, inert on a terminal', async () => {
    const box = await initialised();
    const title = 'C1 \u009b2J DEL \u007f bidi \u202eevil';
    await box.json(['articles', 'add', '--title', title, '--slug', 'c1']);
    const r = await box.cli(['articles', 'show', 'c1', '--json']);
    expect(r.stdout).not.toMatch(/[\u007f-\u009f\u202e]/);
    expect(r.stdout).toContain('C1 \\u009b2J DEL \\u007f bidi \\u202eevil');
    expect(JSON.parse(r.stdout).title).toBe(title);
    const missing = await box.cli(['articles', 'show', 'no\u009bpe', '--json']);
    expect(missing.stdout).toContain('no\\u009bpe');
    expect(missing.stdout).not.toContain('\u009b');
  });
});
