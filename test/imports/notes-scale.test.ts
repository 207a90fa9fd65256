import { describe, expect, it } from 'vitest';
import { ImportNotes } from '../../src/imports/types.js';

// An archive of many thousand posts notes each one under the same kinds (a Jekyll `layout` key
// svc does not carry over, a date without a zone): each note costs the same however many came
// before it: the notes of 10,000 posts take a fraction of a second (15 s when each
// note copied the list of those before it).
describe('import notes of a large archive', () => {
  it('notes 10,000 posts under one kind each in a fraction of a second', () => {
    const notes = new ImportNotes();
    const start = performance.now();
    for (let i = 0; i < 10_000; i++) {
      const source = `_posts/2015-01-01-post-${i}.md`;
      notes.unknownKey('layout', source);
      notes.unknownKey('layout', source); // a second mention of one key in one file is one file
      notes.naiveDate(source, `date 2015-01-01 10:00`);
      notes.skip('drafts', source);
      notes.warn('Posts dated in the future wait for that date', source);
    }
    const lines = notes.lines();
    expect(performance.now() - start).toBeLessThan(1_000);
    expect(lines).toContain('Skipped 10000: drafts: _posts/2015-01-01-post-0.md, _posts/2015-01-01-post-1.md, _posts/2015-01-01-post-2.md and 9997 more');
    expect(lines).toContain('Front matter keys not carried over (svc has no field for them): layout (10000 files)');
    expect(lines.some((l) => l.startsWith('10000 dates without a time zone read as UTC: '))).toBe(true);
  });
});
