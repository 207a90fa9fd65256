import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { archivePost } from '../../bench/seed.js';
import { plainYaml } from '../../src/imports/front-matter.js';

// plainYaml reads the common front matter without the yaml library: whatever it reads must be
// what the yaml library reads, and what it cannot read it leaves to the library.

const frontMatter = (text: string) => /^---\n([\s\S]*?)\n---\n/.exec(text)?.[1];

function fixtureFrontMatters(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return fixtureFrontMatters(file);
    return /\.mdx?$/.test(name) ? [frontMatter(readFileSync(file, 'utf8'))].filter((f): f is string => f !== undefined) : [];
  });
}

const LINES = [
  'title: A plain title', 'title: "Quoted: with a colon"', "title: 'It''s single'", 'title: "x\\ty"', 'title: "tab\there"', 'title: C#', 'title: x #comment',
  'title: x:y', 'title: Foo: bar', 'title: Foo [x]', 'title: {a: 1}', 'title: yes', 'title: no', 'title: true', 'title: True', 'title: null', 'title: ~', 'title: NULL',
  'title: .5', 'title: 1e3', 'title: 0o17', 'title: 0x1F', 'title: 12', 'title: -x', 'title: Infinity', 'title: x, y', 'title: a - b', 'title: hello  world  ',
  'title: é accent', 'title: a é', 'title: *ref', 'title: &anchor x', 'title: !tag x', 'title: |', 'title: >', 'title: %x', 'title: @x', 'title: `x`',
  'date: 2015-01-01', 'date: 2015-01-01T01:00:00.000Z', 'date: 2015-01-01T01:00:00+02:00', 'date: 2015-01-01 10:00:00', 'date: 2015-1-5',
  'tags: ["a", "b"]', 'tags: []', 'tags: [ "a" , "b" ]', 'tags: ["a", "b",]', 'tags: [a, b]', 'tags: ["a\\"b"]', "tags: ['a']",
  'true: 1', 'null: x', 'Title: x', 'my key: x', 'key:value', 'key:', 'key:\tx', '  indented: x', '# comment', '', 'a_b-c: x', 'constructor: x', 'toString: x',
  'title: "a\u2028b"', 'title: a\u0085b', 'title: "\ufeffx"',
];

describe('plainYaml', () => {
  it('reads what the yaml library reads, and leaves the rest to it', () => {
    const texts = [
      ...LINES,
      ...LINES.flatMap((a) => LINES.slice(0, 12).map((b) => `${a}\n${b}`)),
      ...Array.from({ length: 300 }, (_, i) => frontMatter(archivePost(i * 37))!),
      ...fixtureFrontMatters(path.join(import.meta.dirname, 'fixtures')),
    ];
    let read = 0;
    for (const text of texts) {
      const fast = plainYaml(text);
      if (fast === undefined) continue;
      read++;
      let slow: unknown;
      try {
        slow = YAML.parse(text);
      } catch (err) {
        throw new Error(`plainYaml read ${JSON.stringify(text)} which YAML refuses: ${(err as Error).message}`);
      }
      expect(fast, JSON.stringify(text)).toStrictEqual(slow);
    }
    // The common forms are read here, not all left to the library.
    expect(read).toBeGreaterThan(350);
    expect(plainYaml(frontMatter(archivePost(1))!)).toBeDefined();
    expect(plainYaml('title: A post\ndate: 2024-05-01\ntags: ["a", "b"]\ndescription: \'It\'\'s\'')).toStrictEqual({ title: 'A post', date: '2024-05-01', tags: ['a', 'b'], description: "It's" });
  });
});
