import path from 'node:path';
import type { ImportNotes } from './types.js';

// Hugo's multilingual sites name translations by a language suffix: `posts/x.fr.md`, and page
// bundles `posts/x/index.en.md` + `index.zh-cn.md`. Each language is served under its own prefix
// (`/zh-cn/posts/x/`), so one svc workspace keeps the URLs of one language: `--lang` picks it.

const MARKDOWN = /\.(md|markdown|mdx)$/i;
const languages = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });

/** The language a suffix names (`en`, `zh-cn`, `pt-br`), or undefined (`3.0-released`, `go`). */
function languageOf(suffix: string): string | undefined {
  if (!/^[a-z]{2,3}(?:-[a-z0-9]{2,8})?$/i.test(suffix)) return undefined;
  try {
    return languages.of(suffix) ? suffix.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

/** `index.en.md` -> { base: 'index', lang: 'en' }; `my.post.md` -> { base: 'my.post' }. */
export function splitLanguage(file: string): { base: string; lang?: string } {
  const stem = path.basename(file).replace(/\.[^.]+$/, '');
  const dot = stem.lastIndexOf('.');
  const lang = dot > 0 ? languageOf(stem.slice(dot + 1)) : undefined;
  return lang ? { base: stem.slice(0, dot), lang } : { base: stem };
}

export interface Source {
  label: string;
  file: string;
  /** The path given to the import that found it (a folder, or the file itself). */
  root: string;
  /** The language suffix of a translation, stripped from the slug (`index.en.md` is `index`). */
  lang?: string;
}

/**
 * Which markdown files to read when some are translations. A suffix is a language when the file
 * is a page bundle's `index`, when another file has the same name with another (or no) suffix, or
 * with `--lang`. With `lang`, translations into other languages are left out (said once); without
 * it, a post present in several languages is refused by name, asking for `--lang`.
 */
export function chooseLanguage(sources: Source[], lang: string | undefined, notes: ImportNotes): Source[] {
  const wanted = lang?.toLowerCase();
  const groups = new Map<string, Set<string>>();
  // Only markdown files are translations; an export (`site.en.xml`) is read whatever its name.
  const split = sources.map((s) => {
    if (!MARKDOWN.test(s.file)) return { s, base: '', lang: undefined, key: undefined };
    const named = splitLanguage(s.file);
    return { s, ...named, key: path.join(path.dirname(s.file), named.base) };
  });
  for (const x of split) if (x.key !== undefined) groups.set(x.key, (groups.get(x.key) ?? new Set()).add(x.lang ?? ''));
  const out: Source[] = [];
  for (const x of split) {
    const versions = x.key === undefined ? undefined : groups.get(x.key); // an export is no translation: its versions never count
    // Section pages (_index.en.md) are skipped by the reader whatever their language.
    const translated = x.lang !== undefined && x.base !== '_index' && (x.base === 'index' || wanted !== undefined || (versions?.size ?? 0) > 1);
    if (!translated) {
      out.push(x.s);
      continue;
    }
    if (wanted !== undefined && x.lang !== wanted) {
      notes.skip(`translations into other languages than ${wanted} (--lang ${wanted})`, x.s.label);
      continue;
    }
    if (wanted === undefined && versions && versions.size > 1) {
      const names = [...versions].map((v) => v || 'no suffix').sort();
      notes.problem(x.s.label, `a translation (${names.join(', ')}) of one post: import one language with --lang (e.g. --lang ${[...versions].find(Boolean)})`);
      continue;
    }
    notes.warn(`Posts read in ${x.lang}${wanted ? ` (--lang ${wanted})` : ''}, their language suffix left out of the slug`, x.s.label);
    out.push({ ...x.s, lang: x.lang });
  }
  return out;
}
