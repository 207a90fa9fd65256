import { z } from 'zod';
import { advertisedAs, parseInput } from '../lib/validate.js';

/** What each input names in refusals, by schema ("Invalid article: ..."). */
const labels = new WeakMap<z.ZodTypeAny, string>();

/** A description for the model of every field: a field the domain adds must be described here. */
export type Descriptions<S extends z.ZodRawShape> = { [K in keyof S]-?: string };

/**
 * A tool's input schema derived from the domain's (one rule in one place): pass the fields of the domain's zod
 * schema (`articleCreateInput.shape`, `keywordLookupInput.shape`, plus any tool-only field such
 * as the `id` naming an article) and a description of each. The fields keep the domain's own
 * validators, so tools/list advertises the domain's limits and a bad field is refused with the
 * words the CLI uses; the object is strict, as the `additionalProperties: false` it advertises
 * says. `what` names the input in refusals, like the domain service's parseInput label.
 */
export function toolInput<S extends z.ZodRawShape>(what: string, fields: S, describe: Descriptions<S>, shown: NoInfer<Shown<S>> = {}) {
  const described = Object.fromEntries(Object.entries(fields).map(([name, schema]) => [name, schema.describe(describe[name])])) as S;
  return describedToolInput(what, described, shown);
}

/**
 * What tools/list advertises for fields whose domain rule JSON Schema cannot read from the
 * validator: limits counted in code points (a superRefine), enums behind a lenient transform,
 * slug patterns, date-times. Each must be true of the domain's rule: a value past it is refused,
 * a value within it is accepted (test/mcp/tool-schemas.test.ts holds them to it).
 */
export type Shown<S extends z.ZodRawShape> = { [K in keyof S]?: z.ZodTypeAny };

/** The same for a domain shape whose fields already carry their descriptions (keywords/inputs.ts). */
export function describedToolInput<S extends z.ZodRawShape>(what: string, fields: S, shown: NoInfer<Shown<S>> = {}) {
  const advertised = Object.fromEntries(
    Object.entries(fields).map(([name, field]) => {
      const as = shown[name];
      if (!as) return [name, field];
      const piped = advertisedAs(as, field);
      return [name, field.description === undefined ? piped : piped.describe(field.description)];
    }),
  ) as S;
  const schema = z.object(advertised).strict();
  labels.set(schema, what);
  return schema;
}

/**
 * Check a tools/call's arguments against a schema made by toolInput; throws the AppError the
 * domain's parseInput throws (invalid_input naming every bad field). Undefined when the schema
 * was not made by toolInput (the SDK validates those itself).
 */
export function checkToolArguments(schema: unknown, args: unknown): true | undefined {
  const what = labels.get(schema as z.ZodTypeAny);
  if (what === undefined) return undefined;
  parseInput(schema as z.ZodTypeAny, args ?? {}, what);
  return true;
}
