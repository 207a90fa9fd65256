import { z } from 'zod';
import { parseInput } from '../lib/validate.js';

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
export function toolInput<S extends z.ZodRawShape>(what: string, fields: S, describe: Descriptions<S>) {
  const described = Object.fromEntries(Object.entries(fields).map(([name, schema]) => [name, schema.describe(describe[name])])) as S;
  return describedToolInput(what, described);
}

/** The same for a domain shape whose fields already carry their descriptions (keywords/inputs.ts). */
export function describedToolInput<S extends z.ZodRawShape>(what: string, fields: S) {
  const schema = z.object(fields).strict();
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
