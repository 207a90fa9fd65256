import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../errors.js';
import { POST_FILE_MAX_BYTES } from '../articles/body-limits.js';
import { FILE_MAX_BYTES, readTextFile } from '../lib/text-file.js';
import { ghostData, readGhost } from './ghost.js';
import type { AuthorsFiles } from './authors-file.js';
import type { SiteCollections } from './collections.js';
import type { Source } from './languages.js';
import { readMarkdown } from './markdown.js';
import type { ImportItem, ImportNotes, ReaderOptions } from './types.js';
import { readWordPress } from './wordpress.js';

const MARKDOWN = /\.(md|markdown|mdx)$/i;

/**
 * The files named on the command line, with folders walked for markdown (a Hugo `content/`, a
 * Jekyll `_posts`, an Astro `src/content/blog`): hidden folders and node_modules are passed by.
 * Labels are the paths as given, so messages name files the way the person typed them.
 */
export async function listSources(args: string[], cwd: string, notes: ImportNotes): Promise<Source[]> {
  const out: Source[] = [];
  const walk = async (label: string, file: string, root: string): Promise<void> => {
    const entries = (await readdir(file, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const e of entries) {
      if (e.name.startsWith('.') || e.name === 'node_modules') continue;
      if (e.isDirectory()) await walk(path.join(label, e.name), path.join(file, e.name), root);
      else if (e.isFile() && MARKDOWN.test(e.name)) out.push({ label: path.join(label, e.name), file: path.join(file, e.name), root });
    }
  };
  for (const arg of args) {
    const file = path.resolve(cwd, arg);
    const info = await stat(file).catch(() => undefined);
    if (info?.isDirectory()) {
      const before = out.length;
      await walk(arg, file, file);
      if (out.length === before) notes.problem(arg, `${file} is a folder with no markdown files (.md, .markdown, .mdx) in it`);
    }
    else if (info) out.push({ label: arg, file, root: path.dirname(file) });
    else notes.problem(arg, `No such file: ${file}`);
  }
  return out;
}

/** A Ghost JSON or WordPress WXR export, by its name. */
export const isExport = (file: string): boolean => /\.(json|xml)$/i.test(file);

/**
 * Read one file with the reader its kind asks for: a `.json` Ghost export, a `.xml` WordPress
 * export, anything else markdown with front matter (its author keys looked up in the nearest
 * authors.yml, its Eleventy directory data read). Problems go to `notes`.
 */
export async function readSource(src: Source, opts: ReaderOptions, notes: ImportNotes, authors: AuthorsFiles, collections: SiteCollections): Promise<ImportItem[]> {
  let text: string;
  try {
    text = isExport(src.file) ? await readTextFile(src.file, FILE_MAX_BYTES, 'an export') : await readTextFile(src.file, POST_FILE_MAX_BYTES, 'a post file');
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    notes.problem(src.label, err.message);
    return [];
  }
  if (/\.json$/i.test(src.file)) {
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (err) {
      notes.problem(src.label, `not valid JSON: ${(err as Error).message}`);
      return [];
    }
    const ghost = ghostData(doc);
    if ('problem' in ghost) {
      notes.problem(src.label, ghost.problem);
      return [];
    }
    return readGhost(src.label, ghost.data, opts, notes);
  }
  if (/\.xml$/i.test(src.file)) return readWordPress(src.label, text, opts, notes);
  const item = readMarkdown(src.label, text, opts, notes, src.lang, await authors.near(src.file), await collections.directoryTags(src.file, src.root));
  if (!item) return [];
  item.file = src.file;
  item.root = src.root;
  return [item];
}
