import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { png } from '../images/png.js';
import { importWorld } from './world.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

// Markdown bodies hold HTML too (Hugo and Jekyll themes' posts, WordPress posts moved to
// markdown): its links, images and players name files beside the post as markdown does.
describe('HTML and reference definitions in a markdown body name files beside the post', () => {
  it('<a href> to a file, an image or a post, <video src> and its poster: each treated as the markdown form is', async () => {
    const w = await importWorld();
    const blog = path.join(w.d.dir, 'blog');
    mkdirSync(path.join(blog, 'trip'), { recursive: true });
    mkdirSync(path.join(blog, 'notes'), { recursive: true });
    const [full, still] = [png(5, 4, 1), png(3, 2, 2)];
    writeFileSync(path.join(blog, 'trip', 'full.png'), full);
    writeFileSync(path.join(blog, 'trip', 'still.png'), still);
    writeFileSync(path.join(blog, 'trip', 'route.pdf'), '%PDF-1.4\n');
    writeFileSync(path.join(blog, 'trip', 'tracks.zip'), 'PK');
    writeFileSync(path.join(blog, 'trip', 'clip.mp4'), 'mp4');
    writeFileSync(path.join(blog, 'trip', 'slides.pdf'), '%PDF-1.4\n');
    writeFileSync(path.join(blog, 'notes', 'notes.pdf'), '%PDF-1.4\n');
    // The trip's old address is its permalink; the notes' is unknown.
    writeFileSync(
      path.join(blog, 'trip', 'index.md'),
      [
        '---',
        'title: The trip',
        'permalink: /2024/trip/',
        '---',
        'The <a href="route.pdf" title="PDF">route</a>, the <A HREF=tracks.zip>tracks</A>, the <a href="full.png">map in full</a>.',
        '',
        '<video src="clip.mp4" poster="./still.png" controls>Watch the clip</video>',
        '',
        'Before it: <a href="../notes/index.md#packing">my notes</a>; after it: <a href=\'../later/index.md\'>later</a>.',
        '',
        'Shown as code, left alone: `<a href="route.pdf">`.',
        '',
        // The neighbours in markdown: reference definitions name files and posts as inline links do.
        'See [the slides][slides] and [my notes again][notes].',
        '',
        '[slides]: slides.pdf',
        '[notes]: ../notes/index.md',
        '',
      ].join('\n'),
    );
    writeFileSync(path.join(blog, 'notes', 'index.md'), '---\ntitle: Notes\n---\n## Packing\n\nThe <a href="notes.pdf">notes</a> in full.\n');
    const env = { ...w.d.env, SVC_SERVER_BASE_URL: w.d.url };
    const r = await runCli(['articles', 'import', '--publish', 'blog', '--json', '--workspace', w.ws.name], { env, cwd: w.d.dir });
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const report = r.json();
    expect(report.counts).toMatchObject({ imported: 2, failed: 0 });
    expect(report.images).toMatchObject({ used: 2, added: 2, left: [] });

    const [tripSource, notesSource] = ['trip', 'notes'].map((f) => path.join('blog', f, 'index.md'));
    const files = report.notes.find((n: string) => n.startsWith('Files beside posts that are not images were not carried over'));
    expect(files).toContain(`${notesSource} (notes.pdf)`);
    expect(files).toContain(
      [
        `${tripSource} (route.pdf -> https://example.com/2024/trip/route.pdf)`,
        `${tripSource} (tracks.zip -> https://example.com/2024/trip/tracks.zip)`,
        `${tripSource} (clip.mp4 -> https://example.com/2024/trip/clip.mp4)`,
        `${tripSource} (slides.pdf -> https://example.com/2024/trip/slides.pdf)`,
      ].join(', '),
    );
    expect(report.notes).toContain(`Links to post files that are not in this import (kept as written, they lead nowhere on svc until that post is imported too): ${tripSource} (../later/index.md)`);
    expect(report.notes).toContain(
      `HTML video and audio players were kept in the markdown, but svc renders no players: readers see only the text inside them (link to the file, or embed the video from YouTube or Vimeo): ${tripSource}`,
    );

    const trip = (await w.api('/articles/trip')).body.data;
    const notes = (await w.api('/articles/notes')).body.data;
    expect(trip.html).toContain(
      `The <a href="https://example.com/2024/trip/route.pdf" title="PDF">route</a>, the <a href="https://example.com/2024/trip/tracks.zip">tracks</a>, the <a href="${w.d.url}/media/${sha(full)}.png">map in full</a>.`,
    );
    expect(trip.html).toContain(`Before it: <a href="${notes.url}#packing">my notes</a>; after it: <a href="../later/index.md">later</a>.`);
    expect(trip.html).toContain('<code>&lt;a href="route.pdf"&gt;</code>');
    expect(trip.html).toContain(`See <a href="https://example.com/2024/trip/slides.pdf">the slides</a> and <a href="${notes.url}">my notes again</a>.`);
    expect(trip.markdown).toContain(`<video src="https://example.com/2024/trip/clip.mp4" poster="${w.d.url}/media/${sha(still)}.png" controls>Watch the clip</video>`);
    // Without the post's old address, the link keeps its text only, as a markdown link does.
    expect(notes.html).toContain('<p>The <a>notes</a> in full.</p>');
  });
});
