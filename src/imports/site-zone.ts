import { access } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../errors.js';
import { isTimeZone } from '../lib/datetime.js';
import { readTextFile } from '../lib/text-file.js';
import { normaliseKey, parseDataFile } from './front-matter.js';
import { type HexoSite, hexoSite } from './hexo-permalink.js';
import type { ImportNotes } from './types.js';

// The time zone a static site's generator reads dates without an offset in: Hugo's `timeZone`
// (hugo.toml, config.toml ...), Jekyll's and Hexo's `timezone` (_config.yml). Looked for in the
// imported folder and the folders above it, as far up as a site keeps its posts (Hugo's
// content/posts, Hexo's source/_posts).

const CONFIGS = ['hugo.toml', 'hugo.yaml', 'hugo.yml', 'hugo.json', 'config.toml', 'config.yaml', 'config.yml', 'config.json', '_config.yml', '_config.yaml'];
const LEVELS = 4;

type Config = { file: string; data: Record<string, unknown> };

/** Site time zones (and Hexo's permalink pattern) found so far, by imported path, each config file read once per import. */
export class SiteZones {
  private readonly byDir = new Map<string, Promise<Config | null | undefined>>();

  constructor(private readonly notes: ImportNotes) {}

  /** The zone of the site holding `imported` (a folder or file given to the import), if its config names one. */
  async of(imported: string): Promise<string | undefined> {
    const config = await this.nearest(imported);
    if (!config) return undefined;
    const zone = Object.entries(config.data).find(([k]) => normaliseKey(k) === 'timezone')?.[1];
    if (typeof zone !== 'string' || zone.trim() === '') return undefined;
    if (!isTimeZone(zone.trim())) {
      this.notes.warn(`Site configs naming a time zone this machine does not know ("${zone}") were passed by: dates without a zone were read as UTC or --timezone`, config.file);
      return undefined;
    }
    return zone.trim();
  }

  /**
   * Hexo's settings for its posts' addresses (the `permalink` pattern and what fills it) when the
   * site keeps files in post asset folders (`post_asset_folder: true` in _config.yml), which Hexo
   * serves beside each post.
   */
  async hexoSite(imported: string): Promise<HexoSite | undefined> {
    const config = await this.nearest(imported);
    if (!config || !path.basename(config.file).startsWith('_config') || config.data.post_asset_folder !== true) return undefined;
    return hexoSite(config.data);
  }

  /** The config of the site holding `imported`: in its folder or up to LEVELS - 1 above; null for one that cannot be read. */
  private async nearest(imported: string): Promise<Config | null | undefined> {
    let dir = imported;
    for (let i = 0; i < LEVELS; i++) {
      const found = await this.inDir(dir);
      if (found !== undefined) return found;
      const up = path.dirname(dir);
      if (up === dir) break;
      dir = up;
    }
    return undefined;
  }

  private inDir(dir: string): Promise<Config | null | undefined> {
    let pending = this.byDir.get(dir);
    if (!pending) {
      pending = this.read(dir);
      this.byDir.set(dir, pending);
    }
    return pending;
  }

  /** This folder's config (the search stops there); null for one that cannot be read or holds no settings; undefined for none. */
  private async read(dir: string): Promise<Config | null | undefined> {
    for (const name of CONFIGS) {
      const file = path.join(dir, name);
      if (!(await access(file).then(() => true, () => false))) continue;
      let data: unknown;
      try {
        data = parseDataFile(await readTextFile(file), file);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        this.notes.warn(`Site configs that could not be read were passed by (${err.message}), so dates without a zone were read as UTC or --timezone`, file);
        return null;
      }
      return typeof data === 'object' && data !== null && !Array.isArray(data) ? { file, data: data as Record<string, unknown> } : null;
    }
    return undefined;
  }
}
