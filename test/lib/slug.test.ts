import { describe, expect, it } from 'vitest';
import { DERIVED_SLUG_MAX, isValidSlug, normaliseSlug, slugForms, slugify } from '../../src/lib/slug.js';
import { charLength } from '../../src/lib/validate.js';

const nfd = (s: string) => s.normalize('NFD');

describe('slugify: slugs derived from titles, every script (issue 13)', () => {
  it('keeps marks with their letters (NFC) instead of splitting them off into dashes', () => {
    expect(slugify('京都の喫茶店めぐり')).toBe('京都の喫茶店めぐり');
    expect(slugify('がっこう ガイド')).toBe('がっこう-ガイド');
    expect(slugify('한국어 가이드')).toBe('한국어-가이드');
    expect(slugify('हिन्दी भाषा')).toBe('हिन्दी-भाषा');
    expect(slugify('ภาษาไทย')).toBe('ภาษาไทย');
    expect(slugify('Привет, мир')).toBe('привет-мир');
    expect(slugify('Ἀθῆναι')).toBe('ἀθῆναι');
    for (const title of ['京都の喫茶店めぐり', 'がっこう ガイド', '한국어 가이드', 'Ἀθῆναι']) {
      expect(slugify(title)).toBe(slugify(title).normalize('NFC'));
      expect(slugify(nfd(title)), 'an NFD title gives the same slug').toBe(slugify(title));
    }
  });

  it('folds Latin accents and ligatures to ASCII, and compatibility forms (full width, half-width kana)', () => {
    expect(slugify('Café crème brûlée')).toBe('cafe-creme-brulee');
    expect(slugify(nfd('Café crème brûlée'))).toBe('cafe-creme-brulee');
    expect(slugify('Straße & Œuvre')).toBe('strasse-oeuvre');
    expect(slugify('Tiếng Việt')).toBe('tieng-viet');
    expect(slugify("Don't panic!")).toBe('dont-panic');
    expect(slugify('ｶﾞｲﾄﾞ ＡＢＣ')).toBe('ガイド-abc');
  });

  it('drops what is not a letter, mark or digit, and is empty when nothing is left', () => {
    expect(slugify('☕ coffee ☕')).toBe('coffee');
    expect(slugify('\u0301abc')).toBe('abc'); // a mark with no letter to sit on
    expect(slugify('می\u200cخواهم')).toBe('میخواهم'); // a zero-width non-joiner is no word break
    expect(slugify('!!! ---')).toBe('');
  });

  it('cuts long titles at a whole character, never inside one', () => {
    expect(charLength(slugify('京'.repeat(300)))).toBe(DERIVED_SLUG_MAX);
    expect(charLength(slugify('𠮷'.repeat(300)))).toBe(DERIVED_SLUG_MAX); // astral: 2 UTF-16 units each
    const devanagari = slugify('क्षि'.repeat(100)); // 4 code points per grapheme
    expect(charLength(devanagari)).toBe(DERIVED_SLUG_MAX);
    expect(devanagari.endsWith('क्षि')).toBe(true);
    const cut = slugify(`${'a'.repeat(119)} bcd`);
    expect(cut).toBe('a'.repeat(119));
  });
});

describe('explicit slugs', () => {
  it('are letters, marks and digits of any script joined by single dashes, stored lower case in NFC', () => {
    for (const ok of ['my-first-post', '京都-カフェ', '한국어-가이드', 'crème-brûlée', 'हिन्दी', '2026-guide', 'ἀθῆναι', 'a_b', 'a.b', 'converter-3.0-released', 'hugo_build']) expect(isValidSlug(ok), ok).toBe(true);
    for (const bad of ['', 'a--b', '-a', 'a-', 'a b', 'a/b', 'A', nfd('crème'), '\u0301a', 'a\u0000', '☕', 'a..b', 'a._b', '.a', 'a.', '_a', '..', '.', 'a~b']) expect(isValidSlug(bad), JSON.stringify(bad)).toBe(false);
    expect(normaliseSlug(' Crème-Brûlée ')).toBe('crème-brûlée');
    expect(normaliseSlug(nfd('がっこう'))).toBe('がっこう');
    expect(isValidSlug(normaliseSlug(nfd('Crème')))).toBe(true);
  });

  it('are looked up in NFC and in the NFD spelling slugs derived before NFC was the rule were stored in', () => {
    expect(slugForms('my-post')).toEqual(['my-post']);
    expect(slugForms(nfd('한국어'))).toEqual(['한국어', nfd('한국어')]);
    expect(slugForms('Crème')).toEqual(['crème', nfd('crème')]);
  });
});
