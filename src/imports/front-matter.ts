import { parse as parseToml } from 'smol-toml';
import YAML from 'yaml';
import { invalidInput } from '../errors.js';

/** A markdown file split into its front matter (as data) and its body. */
export interface SplitFile {
  data: Record<string, unknown>;
  body: string;
  /** Keys whose quoted value ran onto unindented lines, read as Hugo reads them (see reindentQuoted). */
  repaired?: string[];
  /** Keys of JavaScript front matter written as code svc does not read (their value is null). */
  unread?: string[];
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
    let repaired: string[] | undefined;
    try {
      data = parse(match[1] ?? '');
    } catch (err) {
      const retry = name === 'YAML' ? reindentQuoted(match[1] ?? '') : undefined;
      try {
        if (!retry) throw err;
        data = parse(retry.text);
        repaired = retry.keys;
      } catch {
        throw invalidInput(`the front matter is not valid ${name}: ${(err as Error).message.split('\n')[0]}`);
      }
    }
    return { data: mapping(data ?? {}, name), body: src.slice(match[0].length), ...(repaired ? { repaired } : {}) };
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

// A top-level key whose quoted value opens on its line and does not close there.
const OPEN_QUOTED = /^([A-Za-z_][\w-]*)[ \t]*:[ \t]+(["'])(.*)$/;

/** Whether `text` (inside a quoted scalar) holds the closing quote: `"` not escaped by `\`, `'` not doubled. */
function closesQuote(text: string, quote: string): boolean {
  return quote === '"' ? /(?:^|[^\\])(?:\\\\)*"/.test(text) : /'/.test(text.replace(/''/g, ''));
}

/**
 * Hugo's YAML reader (go-yaml) takes a quoted value that runs onto lines with no indentation
 * (`description: "one line` then `and the next."` at the start of a line); the YAML standard, and
 * the yaml package, refuse it. Only when the front matter fails to parse: the lines inside such a
 * top-level quoted value are indented, which changes nothing else (a quoted value folds its line
 * breaks the same either way), and the keys are named. Undefined when there is no such value.
 */
function reindentQuoted(yaml: string): { text: string; keys: string[] } | undefined {
  const lines = yaml.split(/\r?\n/);
  const keys: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = OPEN_QUOTED.exec(lines[i]);
    if (!open || closesQuote(open[3], open[2])) continue;
    let end = i + 1;
    while (end < lines.length && !closesQuote(lines[end], open[2])) end++;
    if (end === lines.length) return undefined; // never closed: not this case
    let moved = false;
    for (let k = i + 1; k <= end; k++) {
      if (lines[k] !== '' && !/^[ \t]/.test(lines[k])) {
        lines[k] = `  ${lines[k]}`;
        moved = true;
      }
    }
    if (moved) keys.push(open[1]);
    i = end;
  }
  return keys.length > 0 ? { text: lines.join('\n'), keys } : undefined;
}

const FENCES: Array<[string, string, (s: string) => unknown]> = [
  ['---', 'YAML', (s) => plainYaml(s) ?? YAML.parse(s)],
  ['+++', 'TOML', (s) => parseToml(s)],
];

// Characters no quoted or plain value of plainYaml holds: control characters, the line breaks
// of other standards and a byte order mark (the yaml library has its own rules for them).
const ODD = '\\x00-\\x1f\\x7f\\u0085\\u2028\\u2029\\ufeff';
const YAML_LINE = /^([A-Za-z][\w-]*):[ ]+(\S.*?)[ \t]*$/;
const DOUBLE_QUOTED = new RegExp(`^"([^"\\\\${ODD}]*)"$`);
const SINGLE_QUOTED = new RegExp(`^'((?:[^'${ODD}]|'')*)'$`);
const QUOTED_LIST = new RegExp(`^\\[ *(?:"[^"\\\\${ODD}]*" *(?:, *"[^"\\\\${ODD}]*" *)*)?\\]$`);
const DATE_TIME = /^\d{4}-\d\d-\d\d(?:T\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?)?$/;
// Starts with a letter; no `#` (a comment), `:` (a mapping), quote or bracket anywhere.
const PLAIN = new RegExp(`^[A-Za-z][^#:"'\\[\\]{}${ODD}]*$`);
// Plain words YAML's core schema reads as null or a boolean, not as text.
const KEYWORD = /^(?:null|Null|NULL|true|True|TRUE|false|False|FALSE)$/;

/**
 * The front matter most posts have, read without the yaml library (which took ~0.5 ms a file,
 * the largest cost of reading an archive): each line `key: value` with a key of its own, the value
 * a quoted string, a list of double-quoted strings, a date, or plain text that starts with a
 * letter and is no keyword. What it returns is what YAML.parse returns; anything else (comments,
 * nesting, numbers, escapes, CRLF) is undefined, for the yaml library to read.
 */
export function plainYaml(text: string): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const line of text.split('\n')) {
    const m = YAML_LINE.exec(line);
    if (!m || KEYWORD.test(m[1]) || Object.hasOwn(out, m[1])) return undefined;
    const v = m[2];
    let quoted: RegExpExecArray | null;
    if ((quoted = DOUBLE_QUOTED.exec(v))) out[m[1]] = quoted[1];
    else if ((quoted = SINGLE_QUOTED.exec(v))) out[m[1]] = quoted[1].replace(/''/g, "'");
    else if (QUOTED_LIST.test(v)) out[m[1]] = JSON.parse(v);
    else if (DATE_TIME.test(v) || (PLAIN.test(v) && !KEYWORD.test(v))) out[m[1]] = v;
    else return undefined;
  }
  // Copied through JSON: the values are slices of the file's text, which would each keep all of it
  // in memory as long as the post is held (an import holds every post to the end: +70 MB at 5,000).
  return JSON.parse(JSON.stringify(out));
}

// One `const name = value;` of Eleventy's JavaScript front matter, the value a JSON literal.
const JS_CONSTANT = /^(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(.+?);?\s*$/;
// One that opens an object or list and goes on over the next lines, and the line closing it.
const JS_OPEN_LITERAL = /^(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*([{[])\s*$/;
const JS_CLOSE_LITERAL = /^[}\]]\s*;?\s*$/;

/**
 * Eleventy's JavaScript front matter (`---js`) is code; svc runs none. Constants with literal
 * values (`const title = "A post";`, the form Eleventy's own starter uses) are read as keys, so
 * are objects and lists over several lines that are plain JSON; others are named in `unread`
 * (the reader refuses them only for a key it carries over); anything else is refused, naming the line.
 */
function javascriptFrontMatter(src: string, lang: string): SplitFile {
  const match = /^---[^\n]*\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(src);
  if (!match) throw invalidInput(`the front matter starts with ---${lang} but has no closing --- line`);
  const data: Record<string, unknown> = {};
  const unread: string[] = [];
  const lines = match[1].split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.trim() === '' || /^\s*\/\//.test(line)) continue;
    const opened = JS_OPEN_LITERAL.exec(line.trim());
    if (opened) {
      // An object or list written over several lines, up to its closing line (`};`, Eleventy's
      // `const eleventyNavigation = {`): read as JSON when it is, else passed by (not carried over).
      let end = i + 1;
      while (end < lines.length && !JS_CLOSE_LITERAL.test(lines[end])) end++;
      if (end < lines.length) {
        const text = [opened[2], ...lines.slice(i + 1, end), lines[end].trim().replace(/;$/, '')].join('\n');
        let value: unknown = null;
        try {
          value = JSON.parse(text);
        } catch {
          unread.push(opened[1]); // not JSON (unquoted keys, a trailing comma): svc reads no JavaScript
        }
        data[opened[1]] = value;
        i = end;
        continue;
      }
    }
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
  return { data, body: src.slice(match[0].length), ...(unread.length > 0 ? { unread } : {}) };
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
