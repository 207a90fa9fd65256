import { access } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../errors.js';
import { isTimeZone } from '../lib/datetime.js';
import { readTextFile } from '../lib/text-file.js';
import { normaliseKey, parseDataFile } from './front-matter.js';
import type { ImportNotes } from './types.js';

// The time zone a static site's generator reads dates without an offset in: Hugo's `timeZone`
// (hugo.toml, config.toml ...), Jekyll's and Hexo's `timezone` (_config.yml). Looked for in the
// imported folder and the folders above it, as far up as a site keeps its posts (Hugo's
// content/posts, Hexo's source/_posts).

const CONFIGS = ['hugo.toml', 'hugo.yaml', 'hugo.yml', 'hugo.json', 'config.toml', 'config.yaml', 'config.yml', 'config.json', '_config.yml', '_config.yaml'];
const LEVELS = 4;

/** Site time zones found so far, by imported path, each config file read once per import. */
export class SiteZones {
  private readonly byDir = new Map<string, Promise<string | undefined>>();

  constructor(private readonly notes: ImportNotes) {}

  /** The zone of the site holding `imported` (a folder or file given to the import), if its config names one. */
  async of(imported: string): Promise<string | undefined> {
    let dir = imported;
    for (let i = 0; i < LEVELS; i++) {
      const found = await this.inDir(dir);
      if (found !== undefined) return found || undefined;
      const up = path.dirname(dir);
      if (up === dir) break;
      dir = up;
    }
    return undefined;
  }

  private inDir(dir: string): Promise<string | undefined> {
    let pending = this.byDir.get(dir);
    if (!pending) {
      pending = this.read(dir);
      this.byDir.set(dir, pending);
    }
    return pending;
  }

  /** The zone named in this folder's config; '' for a config that names none (the search stops there); undefined for no config. */
  private async read(dir: string): Promise<string | undefined> {
    for (const name of CONFIGS) {
      const file = path.join(dir, name);
      if (!(await access(file).then(() => true, () => false))) continue;
      let data: unknown;
      try {
        data = parseDataFile(await readTextFile(file), file);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        this.notes.warn(`Site configs that could not be read were passed by (${err.message}), so dates without a zone were read as UTC or --timezone`, file);
        return '';
      }
      if (typeof data !== 'object' || data === null) return '';
      const zone = Object.entries(data).find(([k]) => normaliseKey(k) === 'timezone')?.[1];
      if (typeof zone !== 'string' || zone.trim() === '') return '';
      if (!isTimeZone(zone.trim())) {
        this.notes.warn(`Site configs naming a time zone this machine does not know ("${zone}") were passed by: dates without a zone were read as UTC or --timezone`, file);
        return '';
      }
      return zone.trim();
    }
    return undefined;
  }
}
