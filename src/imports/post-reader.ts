import type { Renderer } from '../articles/renderer.js';
import { readMarkdown } from './markdown.js';
import { type ImportItem, type NoteCall, type ReaderOptions, recordNotes } from './types.js';

/** A markdown post file as read from disk, with what its folder says about it: all readMarkdown needs. */
export interface PostFile {
  label: string;
  text: string;
  opts: ReaderOptions;
  lang?: string;
  authorNames?: Map<string, string>;
  directoryTags?: string[];
}

/** readMarkdown's answer for one file, its notes kept to be said in file order. */
export interface ReadPost {
  item?: ImportItem;
  notes: NoteCall[];
}

/** readMarkdown with its notes recorded. */
function readPost(post: PostFile): ReadPost {
  const notes: NoteCall[] = [];
  const item = readMarkdown(post.label, post.text, post.opts, recordNotes(notes), post.lang, post.authorNames, post.directoryTags);
  return { item, notes };
}

/** What a render worker runs (Renderer.call) for a task of files. */
export const readPosts = (list: PostFile[]): { value: ReadPost[] } => ({ value: list.map(readPost) });

/** Files to a worker task: one message each way per file would cost about as much as a file's YAML. */
const FILES_PER_TASK = 16;

/**
 * Reads the markdown files of an import in the render workers while the main thread reads the
 * next files from disk: parsing front matter is most of the cost of reading an archive, and the
 * workers are otherwise idle until publishing starts. A task that fails (past the render deadline,
 * a worker gone) has its files read here instead, so the answers are the same either way.
 */
export class PostReader {
  private waiting: Array<{ post: PostFile; done(read: ReadPost): void; fail(err: unknown): void }> = [];

  constructor(private readonly renderer: Renderer) {}

  read(post: PostFile): Promise<ReadPost> {
    return new Promise((done, fail) => {
      this.waiting.push({ post, done, fail });
      if (this.waiting.length >= FILES_PER_TASK) this.flush();
    });
  }

  /** Sends the files still waiting: call it after the last read(). */
  flush(): void {
    const task = this.waiting;
    this.waiting = [];
    if (task.length === 0) return;
    this.renderer.call<ReadPost[]>(new URL(import.meta.url), 'readPosts', task.map((t) => t.post), task[0].post.label).then(
      (reads) => task.forEach((t, i) => t.done(reads[i])),
      () => {
        for (const t of task) {
          try {
            t.done(readPost(t.post));
          } catch (err) {
            t.fail(err);
          }
        }
      },
    );
  }
}
