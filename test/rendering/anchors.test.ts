import { describe, expect, it } from 'vitest';
import { renderBody, renderHtml, wordCount } from '../../src/lib/markdown.js';
import { write } from '../imports/samples.js';
import { importWorld } from '../imports/world.js';

// Links to #anchors are how a long post is read: every heading the body renders carries an id
// those links can name, and no id the sanitiser lets through can do harm.
const BODY = `# The title {#title}

Jump to [the custom one](#custom), [the second intro](#intro-1) or [the Japanese one](#日本語の見出し).

## Intro

## Intro

### Intro

## Café & Crème: ça va?

## 日本語の見出し

## Über *uns* {#custom}

## ???

> ## Quoted heading

## Unsafe id {#java:script}

## Shown as written \\{#not-an-id}
`;

const ids = (html: string) => [...html.matchAll(/<h[1-6] id="([^"]*)"/g)].map((m) => m[1]);
// A browser matches a percent-encoded fragment against the decoded id (HTML, "the indicated part of the document").
const hrefs = (html: string) => [...html.matchAll(/<a href="#([^"]*)"/g)].map((m) => decodeURIComponent(m[1]));

describe('heading anchors', () => {
  it('every heading gets an id: its own {#id}, else a GitHub-style slug of its text, unique within the article', () => {
    const r = renderBody(BODY);
    expect(r.html).toContain('<h2 id="intro">Intro</h2>\n<h2 id="intro-1">Intro</h2>\n<h3 id="intro-2">Intro</h3>');
    expect(r.html).toContain('<h2 id="café--crème-ça-va">Café &amp; Crème: ça va?</h2>');
    expect(r.html).toContain('<h2 id="日本語の見出し">日本語の見出し</h2>');
    expect(r.html).toContain('<h2 id="custom">Über <em>uns</em></h2>');
    expect(r.html).toContain('<h2 id="section">???</h2>');
    expect(r.html).toContain('<blockquote>\n<h2 id="quoted-heading">Quoted heading</h2>');
    // An id that is not letters, digits, - and _ is not used; the heading takes its slug and the {#...} never shows.
    expect(r.html).toContain('<h2 id="unsafe-id">Unsafe id</h2>');
    expect(r.html).toContain('<h2 id="shown-as-written-not-an-id">Shown as written {#not-an-id}</h2>');
    expect(r.html.match(/\{#/g)).toHaveLength(1);
    expect(new Set(ids(r.html)).size).toBe(ids(r.html).length);
    // The outline (the content API's array of strings) has the headings' text, never their {#id}.
    expect(r.outline).toEqual(['Intro', 'Intro', 'Intro', 'Café & Crème: ça va?', '日本語の見出し', 'Über uns', '???', 'Quoted heading', 'Unsafe id', 'Shown as written {#not-an-id}']);
  });

  it('a link to #anchor in the same article finds its heading', () => {
    const { html } = renderBody(BODY);
    expect(hrefs(html)).toEqual(['custom', 'intro-1', '日本語の見出し']);
    for (const href of hrefs(html)) expect(ids(html)).toContain(href);
  });

  it('a slug never takes an id a heading gives itself, wherever that heading stands', () => {
    const { html } = renderBody('## Setup\n\n## Again {#setup}\n');
    expect(ids(html)).toEqual(['setup-1', 'setup']);
  });

  it('a heading\'s {#id} is no word: the SEO audit and a publish count the same words', () => {
    const body = '## Install {#install}\n\nRun it.\n';
    expect(wordCount(body)).toBe(3);
    expect(renderBody(body).words).toBe(3);
  });

  it('the sanitiser keeps a safe id on h1-h6 only and replaces hostile ones with the slug of the text, keeping the heading', () => {
    const html = renderHtml([
      '<h2 id="javascript:alert(1)">a</h2>',
      '<h3 id=\'x" onclick="alert(1)\'>b</h3>',
      '<h4 id="two words">c</h4>',
      '<h5 id="">d</h5>',
      '<h6 id="fine_id-2">e</h6>',
      '<p id="para">f</p>',
      '<a id="link" href="#fine_id-2">g</a>',
    ].join('\n'));
    expect(html).toContain('<h2 id="a">a</h2>');
    expect(html).toContain('<h3 id="b">b</h3>');
    expect(html).toContain('<h4 id="c">c</h4>');
    expect(html).toContain('<h5 id="d">d</h5>');
    expect(html).toContain('<h6 id="fine_id-2">e</h6>');
    expect(html).not.toMatch(/id="(para|link)"|onclick|javascript/);
  });

  it('headings written as raw HTML get ids too, unique with the markdown ones, in the form the links of the body use', () => {
    const html = renderHtml([
      'Contents: [setup](#Getting_Started), [again](#intro-1), [faq](#faq).',
      '',
      '## Intro',
      '',
      '<h2>Intro</h2>',
      '',
      '<h3>Getting <em>Started</em></h3>',
      '',
      '<div class="toc"><h2>F.A.Q.</h2></div>',
      '',
      '<h2>Intro</h2>',
      '',
      '<h2>日本語 見出し</h2>',
      '',
      '<h2><script>x</script></h2>',
    ].join('\n'));
    expect(ids(html)).toEqual(['intro', 'intro-1', 'Getting_Started', 'faq', 'intro-2', '日本語-見出し', 'section']);
    for (const href of hrefs(html)) expect(ids(html)).toContain(href);
    expect(html).toContain('<h3 id="Getting_Started">Getting <em>Started</em></h3>');
  });

  it("a markdown heading takes the form the body's links use for it (Hexo's case-kept ids), else GitHub's slug", () => {
    const html = renderHtml('See [start](#Getting-Started) and [end](#the-end).\n\n## Getting Started\n\n## Getting Started\n\n## The End\n');
    expect(ids(html)).toEqual(['Getting-Started', 'getting-started', 'the-end']);
  });

  it('an imported Hugo or kramdown post keeps its {#id} anchors, and its links to them work', async () => {
    const w = await importWorld();
    write(w.d.dir, 'anchors.md', `---
title: "Install guide"
date: 2024-03-01T10:00:00Z
---

See [installing](#install) and [the options](#options).

## Installing the tool {#install}

Run it.

## Options {#options}

### Advanced options
`);
    const r = await w.cli(['articles', 'import', '--publish', 'anchors.md', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().notes).toEqual([]);
    const { html, markdown, outline } = (await w.api('/articles/anchors')).body.data;
    expect(markdown).toContain('## Installing the tool {#install}');
    expect(html).toContain('<h2 id="install">Installing the tool</h2>');
    expect(html).toContain('<h2 id="options">Options</h2>');
    expect(html).toContain('<h3 id="advanced-options">Advanced options</h3>');
    expect(html).toContain('<a href="#install">installing</a> and <a href="#options">the options</a>');
    expect(outline).toEqual(['Installing the tool', 'Options', 'Advanced options']);
  });
});
