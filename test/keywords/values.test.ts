import { describe, expect, it } from 'vitest';
import { countValue, decimalValue, intentValue, levelValue } from '../../src/keywords/csv-formats.js';
import { normalizeKeyword, uniqueKeywords } from '../../src/keywords/normalize.js';

describe('keyword matching form', () => {
  it('ignores case, Unicode normalisation and runs of white space, nothing else', () => {
    expect(normalizeKeyword('  Cold\u00a0 Brew\tCoffee ')).toBe('cold brew coffee');
    expect(normalizeKeyword('CAFE\u0301')).toBe(normalizeKeyword('café'));
    expect(normalizeKeyword('cold-brew')).not.toBe(normalizeKeyword('cold brew'));
    expect(uniqueKeywords(['Tea', 'tea ', 'TEA', 'green tea'])).toEqual([
      { keyword: 'Tea', normalized: 'tea' },
      { keyword: 'green tea', normalized: 'green tea' },
    ]);
  });
});

describe('cell values of keyword exports', () => {
  it('reads counts as the tools write them', () => {
    for (const [cell, n] of [['12100', 12100], ['12,100', 12100], ['12 100', 12100], ['1.2K', 1200], ['3M', 3_000_000], ['1K – 10K', 1000], ['', undefined], ['-', undefined], ['n/a', undefined]] as const) {
      expect(countValue(cell), cell).toBe(n);
    }
    expect(() => countValue('lots')).toThrow('is not a number');
  });

  it('reads decimals with a dot or a decimal comma, a currency or a percent sign', () => {
    for (const [cell, n] of [['1.23', 1.23], ['$1.23', 1.23], ['1,23', 1.23], ['1,234.5', 1234.5], ['45.6%', 45.6], ['0', 0], ['', undefined]] as const) {
      expect(decimalValue(cell), cell).toBe(n);
    }
    expect(() => decimalValue('abc')).toThrow('is not a number');
  });

  it('reads intents and competition levels in the forms Semrush, Ahrefs and Keyword Planner use', () => {
    expect(intentValue('Informational, Commercial')).toBe('informational');
    expect(intentValue('Non-branded,Commercial,Non-local')).toBe('commercial');
    expect(intentValue('1,0')).toBe('informational'); // Semrush API codes
    expect(intentValue('T')).toBe('transactional');
    expect(intentValue('branded')).toBeUndefined();
    expect(levelValue('Medium')).toBe('MEDIUM');
    expect(levelValue('Élevé')).toBe('HIGH');
    expect(levelValue('?')).toBeUndefined();
  });
});
