import type { z } from 'zod';
import { AppError } from '../errors.js';

/** Parse input with a zod schema; on failure one invalid_input error naming every bad field. */
export function parseInput<S extends z.ZodTypeAny>(schema: S, input: unknown, what = 'input'): z.output<S> {
  // PostgreSQL cannot store NUL in text and SQLite can: refuse it here so both behave alike.
  const nul = findNul(input, []);
  if (nul) fail(`Invalid ${what}: ${nul.length ? `${nul.join('.')}: ` : ''}text may not contain the NUL character (U+0000)`, nul[0]);
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message));
  const first = result.error.issues[0]?.path[0];
  return fail(`Invalid ${what}: ${problems.join('; ')}`, first === undefined ? undefined : String(first));
}

function fail(message: string, field?: string): never {
  throw new AppError('invalid_input', 400, message, { details: field ? { field } : undefined });
}

/** The path of the first string holding U+0000, or undefined. */
function findNul(value: unknown, path: string[], depth = 0): string[] | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (depth > 8 || value === null || typeof value !== 'object') return undefined;
  for (const [key, child] of Object.entries(value)) {
    const found = findNul(child, [...path, key], depth + 1);
    if (found) return found;
  }
  return undefined;
}
