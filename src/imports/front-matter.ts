import { parse as parseToml } from 'smol-toml';
import YAML from 'yaml';
import { invalidInput } from '../errors.js';

/** A markdown file split into its front matter (as data) and its body. */
export interface SplitFile {
  data: Record<string, unknown>;
  body: string;
}

/**
 * A Markdown document with `data` as YAML front matter, written by the yaml library (so a value
 * like `Tea: a guide #1` is quoted and reads back as the same string), then `body`.
 */
export function withFrontMatter(data: Record<string, unknown>, body: string): string {
  return `---\n${YAML.stringify(data, { lineWidth: 0 })}---\n\n${body}`;
}

/**
 * Split front matter from the body: YAML between `---` lines (Jekyll, Hugo, Astro, Next.js),
 * TOML between `+++` lines (Hugo), or a JSON object ending on a line of its own `}` (Hugo).
 * A file without front matter is all body. Throws invalid_input with the parser's reason.
 */
export function splitFrontMatter(text: string): SplitFile {
  const src = text.replace(/^\uFEFF/, '');
  for (const [fence, name, parse] of FENCES) {
    if (!src.startsWith(fence)) continue;
    const f = fence.replace(/\+/g, '\\+');
    const match = new RegExp(`^${f}[ \\t]*\\r?\\n(?:([\\s\\S]*?)\\r?\\n)?${f}[ \\t]*(?:\\r?\\n|$)`).exec(src);
    if (!match) throw invalidInput(`the front matter starts with ${fence} but has no closing ${fence} line`);
    let data: unknown;
    try {
      data = parse(match[1] ?? '');
    } catch (err) {
      throw invalidInput(`the front matter is not valid ${name}: ${(err as Error).message.split('\n')[0]}`);
    }
    return { data: mapping(data ?? {}, name), body: src.slice(match[0].length) };
  }
  const json = /^\{[ \t]*\r?\n[\s\S]*?\r?\n\}[ \t]*(?:\r?\n|$)/.exec(src);
  if (json) {
    try {
      return { data: mapping(JSON.parse(json[0]), 'JSON'), body: src.slice(json[0].length) };
    } catch (err) {
      if ((err as { code?: string }).code === 'invalid_input') throw err;
      throw invalidInput(`the front matter is not valid JSON: ${(err as Error).message}`);
    }
  }
  return { data: {}, body: src };
}

const FENCES: Array<[string, string, (s: string) => unknown]> = [
  ['---', 'YAML', (s) => YAML.parse(s)],
  ['+++', 'TOML', (s) => parseToml(s)],
];

function mapping(data: unknown, name: string): Record<string, unknown> {
  if (typeof data !== 'object' || data === null || Array.isArray(data) || data instanceof Date) {
    throw invalidInput(`the ${name} front matter is not a set of keys and values`);
  }
  return data as Record<string, unknown>;
}

/** Keys compared as authors vary them: `featured_image`, `featuredImage` and `Featured-Image` are one key. */
export const normaliseKey = (key: string) => key.toLowerCase().replace(/[-_\s]/g, '');
