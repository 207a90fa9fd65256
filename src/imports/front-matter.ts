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
 * Split front matter from the body: YAML between `---` lines (Jekyll, Hugo, Astro, Next.js;
 * `---yaml`, `---json` and `---toml` name the language, as Eleventy allows), TOML between `+++`
 * lines (Hugo), a JSON object ending on a line of its own `}` (Hugo), or YAML closed by a `---`
 * line without an opening one (Hexo). A file without front matter is all body. Throws
 * invalid_input with the parser's reason; JavaScript front matter (`---js`) is refused by name.
 */
export function splitFrontMatter(text: string): SplitFile {
  const src = text.replace(/^\uFEFF/, '');
  const lang = /^---[ \t]*(js|javascript|json|yaml|yml|toml)[ \t]*\r?\n/i.exec(src)?.[1].toLowerCase();
  if (lang === 'js' || lang === 'javascript') return javascriptFrontMatter(src, lang);
  for (const [fence, fenceName, fenceParse] of FENCES) {
    if (!src.startsWith(fence)) continue;
    const [name, parse] = lang === 'json' ? ['JSON', JSON.parse] : lang === 'toml' ? ['TOML', parseToml] : [fenceName, fenceParse];
    const f = fence.replace(/\+/g, '\\+');
    const match = new RegExp(`^${f}[ \\t]*(?:json|yaml|yml|toml)?[ \\t]*\\r?\\n(?:([\\s\\S]*?)\\r?\\n)?${f}[ \\t]*(?:\\r?\\n|$)`, 'i').exec(src);
    if (!match) throw invalidInput(`the front matter starts with ${fence} but has no closing ${fence} line`);
    let data: unknown;
    try {
      data = parse(match[1] ?? '');
    } catch (err) {
      throw invalidInput(`the front matter is not valid ${name}: ${(err as Error).message.split('\n')[0]}`);
    }
    return { data: mapping(data ?? {}, name), body: src.slice(match[0].length) };
  }
  const hexo = hexoFrontMatter(src);
  if (hexo) return hexo;
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

// One `const name = value;` of Eleventy's JavaScript front matter, the value a JSON literal.
const JS_CONSTANT = /^(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(.+?);?\s*$/;

/**
 * Eleventy's JavaScript front matter (`---js`) is code; svc runs none. Constants with literal
 * values (`const title = "A post";`, the form Eleventy's own starter uses) are read as keys;
 * anything else is refused, naming the line.
 */
function javascriptFrontMatter(src: string, lang: string): SplitFile {
  const match = /^---[^\n]*\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(src);
  if (!match) throw invalidInput(`the front matter starts with ---${lang} but has no closing --- line`);
  const data: Record<string, unknown> = {};
  for (const line of match[1].split(/\r?\n/)) {
    if (line.trim() === '' || /^\s*\/\//.test(line)) continue;
    const constant = JS_CONSTANT.exec(line.trim());
    let value: unknown;
    try {
      value = constant ? JSON.parse(constant[2]) : undefined;
    } catch {
      value = undefined;
    }
    if (!constant || value === undefined) {
      throw invalidInput(`the front matter is JavaScript (---${lang}, Eleventy) and svc runs no code: only constants with a plain value (const title = "A post";) are read, not ${JSON.stringify(line.trim().slice(0, 80))}; write it as YAML between --- lines`);
    }
    data[constant[1]] = value;
  }
  return { data, body: src.slice(match[0].length) };
}

/**
 * Hexo's front matter may leave out the opening `---`: YAML lines from the first line to a `---`
 * line. Taken only when it reads as keys with a `title` or `date` among them, so a body whose
 * first paragraph is underlined as a heading (`Note: ...` over `---`) stays a body.
 */
function hexoFrontMatter(src: string): SplitFile | undefined {
  if (!/^[A-Za-z_][\w-]*:(?:[ \t]|\r?\n)/.test(src)) return undefined;
  const match = /^([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(src);
  if (!match) return undefined;
  let data: unknown;
  try {
    data = YAML.parse(match[1]);
  } catch {
    return undefined;
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  if (!Object.keys(data).some((k) => /^(title|date)$/i.test(k))) return undefined;
  return { data: data as Record<string, unknown>, body: src.slice(match[0].length) };
}

function mapping(data: unknown, name: string): Record<string, unknown> {
  if (typeof data !== 'object' || data === null || Array.isArray(data) || data instanceof Date) {
    throw invalidInput(`the ${name} front matter is not a set of keys and values`);
  }
  return data as Record<string, unknown>;
}

/** A data file of the site (authors.yml, hugo.toml, _config.yml, config.json) by its extension; invalid_input with the parser's reason. */
export function parseDataFile(text: string, file: string): unknown {
  const kind = /\.toml$/i.test(file) ? 'TOML' : /\.json$/i.test(file) ? 'JSON' : 'YAML';
  try {
    return kind === 'TOML' ? parseToml(text) : kind === 'JSON' ? JSON.parse(text) : YAML.parse(text);
  } catch (err) {
    throw invalidInput(`not valid ${kind}: ${(err as Error).message.split('\n')[0]}`);
  }
}

/** Keys compared as authors vary them: `featured_image`, `featuredImage` and `Featured-Image` are one key. */
export const normaliseKey = (key: string) => key.toLowerCase().replace(/[-_\s]/g, '');
