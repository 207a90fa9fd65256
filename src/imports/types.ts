import type { ArticleCreateInput } from '../articles/inputs.js';
import type { ImportedDates } from '../articles/service.js';

/** One post read from a markdown file or a platform export: what every reader produces. */
export interface ImportItem {
  /** Where it came from, for messages: `posts/a.md`, or `export.json: post "my-slug"`. */
  source: string;
  input: ArticleCreateInput;
  /** A draft on the old site stays a draft here (--publish leaves it alone). */
  draft: boolean;
  /** Its dates on the old site, UTC ISO. */
  dates: ImportedDates;
  /** The markdown file it was read from (absolute), so links to that file find it. */
  file?: string;
  /** Where the old site served it (a front matter `permalink`), so links to there find it. */
  oldUrl?: string;
  /** Where the old site served the files beside it, when not beside its page (Hexo's asset folder). */
  oldFolder?: string;
  /** Why its old address cannot be known (a Hexo permalink pattern it cannot fill), for the notes that need it. */
  oldUrlUnknown?: string;
  /** A markdown post's front matter as read, for the placeholders of its old site's permalink pattern. */
  frontMatter?: Record<string, unknown>;
  /** The folder the import read it from: images beside the post are taken from inside it only. */
  root?: string;
  /** A markdown post's collections: its tags, and in an Eleventy site its directory data files' tags. */
  collections?: string[];
  /** Read from an Eleventy site (a config or directory data files found), whose posts are a collection. */
  eleventy?: boolean;
}

export interface ReaderOptions {
  /** The old site's address: root-relative image paths and Ghost's __GHOST_URL__ resolve against it. */
  baseUrl: string;
  /** Refuse a file with front matter keys svc does not carry over, instead of warning. */
  strict: boolean;
  /** Now (UTC ISO), for dates that decide whether a post is still shown (Hugo's expiryDate). */
  now: string;
  /** The zone markdown dates without one are read in (--timezone, else the site config's); UTC without one. */
  zone?: string;
  /** An export's reader calls it before each of its items (`done` of `total`): a single export's Reading bar counts them. */
  onItem?: (done: number, total: number) => void;
}

/** How many posts a note about many shows in brief (ImportNotes.brief). */
const EXAMPLES = 3;
const MORE = ' (--json lists every one)';
// In place: an archive of many thousand posts may note each one under the same kind.
const push = <K>(map: Map<K, string[]>, key: K, source: string) => {
  const list = map.get(key);
  if (list) list.push(source);
  else map.set(key, [source]);
};

/** What reading a batch found besides its posts, said once at the end (never once per file). */
export class ImportNotes {
  /** Files or posts that cannot be imported, with the reason. */
  readonly problems: Array<{ source: string; message: string }> = [];
  private readonly skipped = new Map<string, string[]>();
  private readonly unknownKeys = new Map<string, Set<string>>();
  private readonly naive = new Map<string, string[]>();
  private readonly warnings = new Map<string, string[]>();
  /** Slugs svc could not keep: every one is listed (the old site needs a redirect for each). */
  readonly movedSlugs: Array<{ source: string; from: string; to: string }> = [];

  problem(source: string, message: string): void {
    this.problems.push({ source, message });
  }

  /** Left out on purpose (a page, an attachment, a section list): `reason` is plural, e.g. "WordPress pages". */
  skip(reason: string, source: string): void {
    push(this.skipped, reason, source);
  }

  unknownKey(key: string, source: string): void {
    const sources = this.unknownKeys.get(key);
    if (sources) sources.add(source);
    else this.unknownKeys.set(key, new Set([source]));
  }

  /** A date without an offset, read as UTC or in `zone`. */
  naiveDate(source: string, value: string, zone = 'UTC'): void {
    push(this.naive, zone, `${source}: ${value}`);
  }

  moved(source: string, from: string, to: string): void {
    this.movedSlugs.push({ source, from, to });
  }

  /** Images beside posts that stay as written, each with its post and why (every one is listed). */
  readonly imagesLeft: Array<{ source: string; image: string; reason: string }> = [];

  imageLeft(source: string, image: string, reason: string): void {
    this.imagesLeft.push({ source, image, reason });
  }

  /** Links to files beside posts that are not images, each with its post and where it points now (every one is listed). */
  readonly filesLeft: string[] = [];

  /** Links to post files that are not in this import, kept as written, each with its post (every one is listed). */
  readonly postLinksLeft: string[] = [];

  /** Links to other imported posts, pointed where svc serves them: each old target once. */
  readonly relinked = new Map<string, string>();

  warn(text: string, source: string): void {
    if (this.warnings.get(text)?.at(-1) !== source) push(this.warnings, text, source); // a post said once per kind
  }

  /** One line per kind of note, every post of each named (what --json gives). */
  lines(): string[] {
    return this.written(Infinity);
  }

  /**
   * The same lines for a terminal: a note about many posts names the first few and how many
   * more, and says where the rest are. Notes naming a URL that moves, an image, a file or a link
   * left as written name every one (each asks for something to be done).
   */
  brief(): string[] {
    return this.written(EXAMPLES);
  }

  private written(examples: number): string[] {
    let cut = false;
    const some = (sources: string[]) => {
      if (sources.length <= examples) return sources.join(', ');
      cut = true;
      return `${sources.slice(0, examples).join(', ')} and ${sources.length - examples} more`;
    };
    // Said at the end of a line that left some out.
    const more = () => (cut ? ((cut = false), MORE) : '');
    const out: string[] = [];
    for (const [reason, sources] of this.skipped) out.push(`Skipped ${sources.length}: ${reason}: ${some(sources)}${more()}`);
    if (this.unknownKeys.size > 0) {
      const keys = [...this.unknownKeys].map(([key, sources]) => `${key} (${sources.size} file${sources.size === 1 ? '' : 's'}: ${some([...sources])})`);
      out.push(`Front matter keys not carried over (svc has no field for them): ${keys.join(', ')}${more()}`);
    }
    for (const [zone, dates] of this.naive) out.push(`${dates.length} date${dates.length === 1 ? '' : 's'} without a time zone read ${zone === 'UTC' ? 'as UTC' : `in ${zone}`}: ${some(dates)}${more()}`);
    for (const [text, sources] of this.warnings) out.push(`${text}: ${some(sources)}${more()}`);
    if (this.relinked.size > 0) {
      out.push(`Links between imported posts now point where svc serves them: ${[...this.relinked].map(([from, to]) => `${from} -> ${to}`).join(', ')}`);
    }
    if (this.imagesLeft.length > 0) {
      out.push(`Images beside posts not carried over (left as written, they do not show on svc): ${this.imagesLeft.map((i) => `${i.source}: ${i.image} (${i.reason})`).join(', ')}`);
    }
    if (this.filesLeft.length > 0) {
      out.push(`Files beside posts that are not images were not carried over (svc stores images only): links to them point at the old site's copy, or show only their text where the post's old address is unknown (a video's or audio's source then stays as written): ${this.filesLeft.join(', ')}`);
    }
    if (this.postLinksLeft.length > 0) {
      out.push(`Links to post files that are not in this import (kept as written, they lead nowhere on svc until that post is imported too): ${this.postLinksLeft.join(', ')}`);
    }
    if (this.movedSlugs.length > 0) {
      const list = this.movedSlugs.map((m) => `${m.from} -> ${m.to} (${m.source})`).join(', ');
      out.push(`URLs that move (svc slugs are letters and digits joined by single - . or _; redirect the old ones): ${list}`);
    }
    return out;
  }
}
