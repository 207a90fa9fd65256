import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importWorld } from './world.js';

// A note about many posts: the terminal names a few and how many more, --json every one, so a
// blogger can find each post a difference applies to.
describe('import notes name every post they apply to', () => {
  it('the terminal shows three and "and N more (--json lists every one)"; --json lists all, for every kind of note', async () => {
    const w = await importWorld();
    mkdirSync(path.join(w.d.dir, 'posts'));
    const posts = [1, 2, 3, 4, 5].map((n) => path.join('posts', `p${n}.md`));
    posts.forEach((file, i) => {
      writeFileSync(path.join(w.d.dir, file), `---\ntitle: Post ${i + 1}\ndate: 2024-01-0${i + 1}\nlayout: post\n---\n<video src="https://cdn.example.net/${i}.mp4">A clip</video>\n`);
    });
    const dates = posts.map((file, i) => `${file}: date 2024-01-0${i + 1}`);
    const players = 'HTML video and audio players were kept in the markdown, but svc renders no players: readers see only the text inside them (link to the file, or embed the video from YouTube or Vimeo)';

    const human = await w.cli(['articles', 'import', 'posts']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stderr.split('\n').filter(Boolean)).toEqual([
      `note: Front matter keys not carried over (svc has no field for them): layout (5 files: ${posts.slice(0, 3).join(', ')} and 2 more) (--json lists every one)`,
      `note: 5 dates without a time zone read as UTC: ${dates.slice(0, 3).join(', ')} and 2 more (--json lists every one)`,
      `note: ${players}: ${posts.slice(0, 3).join(', ')} and 2 more (--json lists every one)`,
    ]);

    // Again, with --json: each post is named, and so is each post already imported.
    const json = await w.cli(['articles', 'import', 'posts', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(json.json().notes).toEqual([
      `Skipped 5: posts already imported unchanged (same slug, title, body and date), left as they are: ${posts.join(', ')}`,
      `Front matter keys not carried over (svc has no field for them): layout (5 files: ${posts.join(', ')})`,
      `5 dates without a time zone read as UTC: ${dates.join(', ')}`,
      `${players}: ${posts.join(', ')}`,
    ]);
  });
});
