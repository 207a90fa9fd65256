import { z, ZodIssueCode, defaultErrorMap } from 'zod';
import { AppError } from '../errors.js';

/** Parse input with a zod schema; on failure one invalid_input error naming every bad field. */
export function parseInput<S extends z.ZodTypeAny>(schema: S, input: unknown, what = 'input'): z.output<S> {
  // PostgreSQL cannot store NUL in text and SQLite can: refuse it here so both behave alike.
  const nul = findNul(input);
  if (nul) fail(`Invalid ${what}: ${nul.length ? `${nul.join('.')}: ` : ''}text may not contain the NUL character (U+0000)`, nul[0]);
  const result = schema.safeParse(input, { errorMap: humanErrors });
  if (result.success) return result.data;
  const problems = result.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message));
  const first = result.error.issues[0]?.path[0];
  return fail(`Invalid ${what}: ${problems.join('; ')}`, first === undefined ? undefined : String(first));
}

function fail(message: string, field?: string): never {
  throw new AppError('invalid_input', 400, message, { details: field ? { field } : undefined });
}

/** The path of the first string holding U+0000, or undefined (a path is made only for one found: every input is searched). */
function findNul(value: unknown, depth = 0): string[] | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? [] : undefined;
  if (depth > 8 || value === null || typeof value !== 'object') return undefined;
  for (const key of Object.keys(value)) {
    const found = findNul((value as Record<string, unknown>)[key], depth + 1);
    if (found) return [key, ...found];
  }
  return undefined;
}

/** Length in characters (code points): the unit of PostgreSQL's varchar(n), unlike String#length. */
export function charLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/**
 * A zod refinement: at most `max` characters, counted as the database counts them, so text
 * that passes always fits its column (zod's own .max counts UTF-16 units). Text past the limit
 * stops the schema there (a fatal issue): the refinements after this one (patterns, URL parsing)
 * never read more text than the field may hold.
 */
export const atMostChars = (max: number, message?: string) => (value: string, ctx: z.RefinementCtx) => {
  if (charLength(value) > max) ctx.addIssue({ code: ZodIssueCode.too_big, type: 'string', maximum: max, inclusive: true, message, fatal: true });
};

/**
 * Text of at most `max` UTF-16 units, measured before `rules` (a pattern, a parse) read it. zod
 * runs every check of a string even after `.max` failed, so `z.string().max(n).regex(p)` runs p
 * over all the text a client sent: a megabytes-long subject can exhaust V8's backtrack stack
 * ("Maximum call stack size exceeded") instead of being refused for its size.
 */
export const lengthFirst = <T extends z.ZodTypeAny>(max: number, rules: T) => z.string().max(max).pipe(rules);

/**
 * `schema`, described to JSON Schema (tools/list) as `shown`: a rule the converter cannot read
 * from a validator (a limit in code points, a slug pattern, an enum behind a lenient transform).
 * The pipeline's input side, the side the converter reads, lets every value through, so only
 * `schema` decides, in its own words. `shown` must be true of `schema`: a value past it is
 * refused, a value within it accepted.
 */
export function advertisedAs<T extends z.ZodTypeAny>(shown: z.ZodTypeAny, schema: T): T {
  const advertisedOnly = Object.create(shown) as z.ZodTypeAny;
  advertisedOnly._parse = (input: z.ParseInput) => z.OK(input.data);
  return z.ZodPipeline.create(advertisedOnly, schema) as unknown as T;
}

/**
 * Trimmed text of 1 to `max` characters (code points, as JSON Schema's maxLength and
 * PostgreSQL's varchar count them; zod's .max counts UTF-16 units), advertised as such.
 */
export const someText = (max: number, messages: { empty?: string; tooLong?: string } = {}) =>
  advertisedAs(z.string().min(1).max(max), z.string().trim().min(1, messages.empty).superRefine(atMostChars(max, messages.tooLong)));

const list = (values: readonly unknown[]) => values.map(String).join(', ');

/**
 * zod's default messages, written for a person ("must be a number" where zod says "Expected
 * number, received nan"). Messages a schema spells out itself take precedence: zod hands a
 * contextual map the message so far, which differs from its default when a schema set one.
 */
export const humanErrors: z.ZodErrorMap = (issue, ctx) => {
  if (ctx.defaultError !== defaultErrorMap(issue, { data: ctx.data, defaultError: ctx.defaultError }).message) return { message: ctx.defaultError };
  switch (issue.code) {
    case ZodIssueCode.invalid_type:
      if (issue.received === 'undefined' || issue.received === 'null') return { message: 'is required' };
      if (issue.expected === 'integer') return { message: 'must be a whole number' };
      if (issue.expected === 'number') return { message: issue.received === 'nan' ? 'must be a number' : `must be a number, not ${aOrAn(issue.received)}` };
      if (issue.expected === 'string') return { message: `must be text, not ${aOrAn(issue.received)}` };
      if (issue.expected === 'boolean') return { message: 'must be true or false' };
      if (issue.expected === 'array') return { message: `must be a list, not ${aOrAn(issue.received)}` };
      return { message: `must be ${aOrAn(issue.expected)}, not ${aOrAn(issue.received)}` };
    case ZodIssueCode.too_small:
      if (issue.type === 'string') return { message: Number(issue.minimum) <= 1 ? 'may not be empty' : `must be at least ${issue.minimum} characters` };
      if (issue.type === 'array') return { message: `needs at least ${issue.minimum} item${Number(issue.minimum) === 1 ? '' : 's'}` };
      return { message: issue.inclusive ? `must be at least ${issue.minimum}` : `must be more than ${issue.minimum}` };
    case ZodIssueCode.too_big:
      if (issue.type === 'string') return { message: `must be at most ${issue.maximum} characters` };
      if (issue.type === 'array') return { message: `may have at most ${issue.maximum} items` };
      return { message: issue.inclusive ? `must be at most ${issue.maximum}` : `must be less than ${issue.maximum}` };
    case ZodIssueCode.invalid_enum_value:
      return { message: `must be one of ${list(issue.options)}, not "${String(issue.received)}"` };
    case ZodIssueCode.invalid_literal:
      return { message: `must be ${JSON.stringify(issue.expected)}` };
    case ZodIssueCode.invalid_string:
      if (issue.validation === 'email') return { message: 'must be an email address, e.g. ann@example.com' };
      if (issue.validation === 'url') return { message: 'must be a URL, e.g. https://example.com' };
      if (issue.validation === 'datetime') return { message: 'must be an ISO 8601 date-time, e.g. 2026-12-01T09:00:00Z' };
      return { message: 'is not in the expected form' };
    case ZodIssueCode.invalid_date:
      return { message: 'must be a valid date' };
    case ZodIssueCode.unrecognized_keys:
      return { message: `unknown field${issue.keys.length > 1 ? 's' : ''} ${list(issue.keys)}` };
    case ZodIssueCode.invalid_union:
    case ZodIssueCode.invalid_union_discriminator:
      return { message: 'has the wrong type' };
    case ZodIssueCode.not_multiple_of:
      return { message: `must be a multiple of ${issue.multipleOf}` };
    default:
      return { message: ctx.defaultError };
  }
};

const aOrAn = (type: string): string => (type === 'nan' ? 'not a number' : /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);
