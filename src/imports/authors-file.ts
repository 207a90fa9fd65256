import { access } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../errors.js';
import { readTextFile } from '../lib/text-file.js';
import { parseDataFile } from './front-matter.js';
import type { ImportNotes } from './types.js';

// Docusaurus names a post's authors by key (`authors: [slorber]`) and keeps who they are in the
// blog folder's authors.yml (`slorber: { name: Sébastien Lorber, ... }`).

const NAMES = ['authors.yml', 'authors.yaml'];
/** Folders looked in: the post's, and up to two above it (a post in its own folder, a year folder). */
const LEVELS = 3;

/** The authors files found so far, by folder, so each is read once per import. */
export class AuthorsFiles {
  private readonly byDir = new Map<string, Promise<Map<string, string> | undefined>>();

  constructor(private readonly notes: ImportNotes) {}

  /** Key -> name from the nearest authors.yml above the post, if there is one. */
  async near(postFile: string): Promise<Map<string, string> | undefined> {
    let dir = path.dirname(postFile);
    for (let i = 0; i < LEVELS; i++) {
      const found = await this.inDir(dir);
      if (found) return found;
      const up = path.dirname(dir);
      if (up === dir) break;
      dir = up;
    }
    return undefined;
  }

  private inDir(dir: string): Promise<Map<string, string> | undefined> {
    let pending = this.byDir.get(dir);
    if (!pending) {
      pending = this.read(dir);
      this.byDir.set(dir, pending);
    }
    return pending;
  }

  private async read(dir: string): Promise<Map<string, string> | undefined> {
    for (const name of NAMES) {
      const file = path.join(dir, name);
      if (!(await access(file).then(() => true, () => false))) continue;
      try {
        const data = parseDataFile(await readTextFile(file), file);
        const out = new Map<string, string>();
        if (typeof data === 'object' && data !== null) {
          for (const [key, value] of Object.entries(data)) {
            const v = value as { name?: unknown } | null;
            if (typeof v?.name === 'string' && v.name.trim()) out.set(key, v.name.trim());
          }
        }
        return out;
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        this.notes.warn(`Authors files that could not be read were passed by, so posts name their authors by key (${(err as Error).message.split('\n')[0]})`, file);
        return undefined;
      }
    }
    return undefined;
  }
}
