import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError } from '../../src/errors.js';
import { articleCreateInput } from '../../src/articles/inputs.js';
import { parseInput } from '../../src/lib/validate.js';
import { emailInput } from '../../src/workspaces/users.js';
import { createArticle } from '../../src/publishing/create.js';
import { startDaemon } from '../helpers/daemon.js';
import { seedWorkspace } from '../helpers/seed.js';

describe('parseInput', () => {
  it('refuses NUL anywhere in the input, naming the field (SQLite and PostgreSQL alike)', () => {
    const schema = z.object({ title: z.string(), tags: z.array(z.string()) });
    let error: unknown;
    try {
      parseInput(schema, { title: 'ok', tags: ['a', 'b\u0000c'] }, 'article');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'invalid_input', status: 400, message: 'Invalid article: tags.1: text may not contain the NUL character (U+0000)', details: { field: 'tags' } });
    expect(parseInput(schema, { title: 'ok', tags: ['a'] })).toEqual({ title: 'ok', tags: ['a'] });
  });

  it('refuses text past its limit for its size, naming the field, before the field\'s pattern reads it', () => {
    // Words of a slug, far past its 200 characters: the slug pattern backtracks once per word,
    // and over this many V8 gives up with "Maximum call stack size exceeded".
    const slug = `${'ab-'.repeat(6_000_000)}a`;
    let error: unknown;
    try {
      parseInput(articleCreateInput, { title: 'A title', slug }, 'article');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'invalid_input', status: 400, message: 'Invalid article: slug: must be at most 200 characters', details: { field: 'slug' } });
  });

  it('refuses an email address past its size for that alone, before the address pattern reads it', () => {
    expect(() => parseInput(emailInput, `${'a.'.repeat(2_000_000)}@example`, 'email')).toThrow(/^Invalid email: an email address has at most 320 characters$/);
    expect(parseInput(emailInput, '  Ann@Example.ORG ', 'email')).toBe('ann@example.org');
    expect(() => parseInput(emailInput, 'not an address', 'email')).toThrow(/not a valid email address/);
  });

  it('keeps a NUL out of the database through a real service', async () => {
    const d = await startDaemon({ jobs: false });
    const ws = await seedWorkspace(d.app);
    await expect(createArticle(d.app, ws, { title: 'Bad\u0000title', bodyMarkdown: 'x' })).rejects.toMatchObject({ code: 'invalid_input', status: 400 });
  });
});
