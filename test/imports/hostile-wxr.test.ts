import { describe, expect, it } from 'vitest';
import { withCaptions } from '../../src/imports/wordpress.js';
import { wxr, write } from './samples.js';
import { importWorld } from './world.js';

describe('hostile WordPress exports are refused clearly', () => {
  it('XML nested more than 100 elements deep: the file is named with the reason, no stack trace', async () => {
    const w = await importWorld();
    write(w.d.dir, 'deep.xml', wxr([{ id: 1 }]).replace('<wp:post_type>post</wp:post_type>', `<wp:post_type>post</wp:post_type>${'<x>'.repeat(150)}${'</x>'.repeat(150)}`));
    const r = await w.cli(['articles', 'import', 'deep.xml']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('deep.xml: not a WordPress export as WordPress writes it: Maximum nested tags exceeded (more than 100 elements inside each other)');
    expect(r.stderr).not.toMatch(/This is a bug|\n\s+at /);
  });

  it('a post whose HTML nests thousands deep is reported by name; the others are imported', async () => {
    const w = await importWorld();
    write(w.d.dir, 'deep-html.xml', wxr([{ id: 1, name: 'fine' }, { id: 2, name: 'deep', content: `${'<div>'.repeat(5000)}x${'</div>'.repeat(5000)}` }]));
    const r = await w.cli(['articles', 'import', '--keep-going', '--publish', 'deep-html.xml', '--json']);
    expect(r.code).toBe(1);
    expect(r.json().error.failed).toEqual([{ source: 'deep-html.xml: post "deep"', error: 'its HTML is nested 5000 elements deep (at most 200 are read; a real post nests a few dozen)' }]);
    expect((await w.api('/articles/fine')).status).toBe(200);
  });

  it('[caption] shortcodes become figures; thousands never closed are left as text (read in one pass)', () => {
    expect(withCaptions('a [caption id="x" width="300"]<a href="https://x.example/big.jpg"><img src="https://x.example/a.jpg" alt="A"></a> The caption[/caption] b')).toBe(
      'a <figure><a href="https://x.example/big.jpg"><img src="https://x.example/a.jpg" alt="A"></a><figcaption>The caption</figcaption></figure> b',
    );
    expect(withCaptions('[CAPTION]<img src="u">[/CAPTION] [caption]no image[/caption] [caption]<img src="v">C[/caption]')).toBe(
      '<figure><img src="u"></figure> [caption]no image[/caption] <figure><img src="v"><figcaption>C</figcaption></figure>',
    );
    const hostile = '[caption id="a"]<img src="https://x.example/a.jpg"> text '.repeat(10_000);
    expect(withCaptions(hostile)).toBe(hostile);
    expect(withCaptions(`${'[caption <img '.repeat(1000)}[/caption]`)).toBe(`${'[caption <img '.repeat(1000)}[/caption]`);
  });
});
