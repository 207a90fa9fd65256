import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importWorld } from './world.js';

// Hugo publishes as posts the pages of its main sections (params.mainSections, else the section
// with the most pages); the rest of content/ are pages, skipped and named as other platforms' are.
async function hugoSite(config: string | null, files: Record<string, string> = {}) {
  const w = await importWorld();
  const site = path.join(w.d.dir, 'site');
  const write = (rel: string, title: string) => {
    mkdirSync(path.dirname(path.join(site, rel)), { recursive: true });
    writeFileSync(path.join(site, rel), `---\ntitle: ${title}\ndate: 2024-01-02T10:00:00Z\n---\nText of ${title}.\n`);
  };
  mkdirSync(site, { recursive: true });
  if (config !== null) writeFileSync(path.join(site, 'hugo.toml'), config);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(site, rel)), { recursive: true });
    writeFileSync(path.join(site, rel), text);
  }
  write('content/about.md', 'About');
  write('content/_index.md', 'Home');
  write('content/posts/_index.md', 'Posts');
  write('content/posts/one.md', 'One');
  write('content/posts/two.md', 'Two');
  write('content/posts/three/index.md', 'Three');
  write('content/projects/tool.md', 'Tool');
  const r = await w.cli(['articles', 'import', 'site/content', '--json']);
  expect(r.code, r.stderr + r.stdout).toBe(0);
  const report = r.json() as { notes: string[]; imported: Array<{ slug: string }> };
  return { report, slugs: report.imported.map((i) => i.slug).sort() };
}

const at = (...parts: string[]) => path.join('site', 'content', ...parts);

describe("Hugo's main sections", () => {
  it('without params.mainSections, the section with the most pages is the posts; about, the list pages and other sections are skipped by name', async () => {
    const { report, slugs } = await hugoSite('title = "Site"\n');
    expect(slugs).toEqual(['one', 'three', 'two']);
    expect(report.notes).toContain(`Skipped 2: pages outside Hugo's main sections (posts: params.mainSections, else the section with the most pages): ${at('about.md')}, ${at('projects', 'tool.md')}`);
    expect(report.notes).toContain(`Skipped 2: Hugo section pages (_index.md, lists rather than posts): ${at('_index.md')}, ${at('posts', '_index.md')}`);
  });

  it('params.mainSections names the posts, in TOML as in the other config formats', async () => {
    const { slugs, report } = await hugoSite('title = "Site"\n[params]\nmainSections = ["projects", "posts"]\n');
    expect(slugs).toEqual(['one', 'three', 'tool', 'two']);
    expect(report.notes).toContain(`Skipped 1: pages outside Hugo's main sections (projects, posts: params.mainSections, else the section with the most pages): ${at('about.md')}`);
  });
});

describe("Hugo's config directory", () => {
  it('params.mainSections in config/_default/params.toml (top-level keys) or its hugo.toml names the posts when the site has no config file at its top', async () => {
    const inParams = await hugoSite(null, { 'config/_default/hugo.toml': 'title = "Site"\n', 'config/_default/params.toml': 'mainSections = ["projects"]\n' });
    expect(inParams.slugs).toEqual(['tool']);
    expect(inParams.report.notes.find((n) => n.startsWith("Skipped 4: pages outside Hugo's main sections (projects: params.mainSections"))).toContain(at('posts', 'one.md'));
    const inHugo = await hugoSite(null, { 'config/_default/hugo.toml': 'title = "Site"\n[params]\nmainSections = ["projects", "posts"]\n' });
    expect(inHugo.slugs).toEqual(['one', 'three', 'tool', 'two']);
  });
});
