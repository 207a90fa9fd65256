import type { z } from 'zod';
import { AppError } from '../errors.js';

/** Parse input with a zod schema; on failure one invalid_input error naming every bad field. */
export function parseInput<S extends z.ZodTypeAny>(schema: S, input: unknown, what = 'input'): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message));
  const first = result.error.issues[0]?.path[0];
  return fail(`Invalid ${what}: ${problems.join('; ')}`, first === undefined ? undefined : String(first));
}

function fail(message: string, field?: string): never {
  throw new AppError('invalid_input', 400, message, { details: field ? { field } : undefined });
}
