import { describe, expect, it } from 'vitest';
import { ImportNotes } from '../../src/imports/types.js';

// An archive of many thousand posts notes each one under the same kinds (a Jekyll `layout` key
// svc does not carry over, a date without a zone): each note must cost the same however many came
// before it. 30,000 posts take about 0.1 s; when each note copied the list of those before it,
// 10,000 took 15 s and 30,000 over a minute and a half, far past this test's 20 s (the loop
// yields now and then, so the timeout can end the test rather than wait for the loop).
describe('import notes of a large archive', () => {
  it('notes 30,000 posts under one kind each', { timeout: 20_000 }, async () => {
    const notes = new ImportNotes();
    for (let i = 0; i < 30_000; i++) {
      if (i % 1_000 === 0) await new Promise((resolve) => setImmediate(resolve));
      const source = `_posts/2015-01-01-post-${i}.md`;
      notes.unknownKey('layout', source);
      notes.unknownKey('layout', source); // a second mention of one key in one file is one file
      notes.naiveDate(source, `date 2015-01-01 10:00`);
      notes.skip('drafts', source);
      notes.warn('Posts dated in the future wait for that date', source);
    }
    const brief = notes.brief();
    expect(brief).toContain('Skipped 30000: drafts: _posts/2015-01-01-post-0.md, _posts/2015-01-01-post-1.md, _posts/2015-01-01-post-2.md and 29997 more (--json lists every one)');
    expect(brief).toContain('Front matter keys not carried over (svc has no field for them): layout (30000 files: _posts/2015-01-01-post-0.md, _posts/2015-01-01-post-1.md, _posts/2015-01-01-post-2.md and 29997 more) (--json lists every one)');
    expect(brief.some((l) => l.startsWith('30000 dates without a time zone read as UTC: '))).toBe(true);
    const full = notes.lines().find((l) => l.startsWith('Skipped 30000: drafts: '));
    expect(full?.split(', ')).toHaveLength(30_000);
  });
});
