import { codeTexts, markdownBlocks, mayHoldCode } from '../lib/markdown.js';

// What blog platforms write in a markdown body that their own renderer turns into something else,
// and that svc's renderer would show as text: MDX comments and truncate markers (Docusaurus parses
// `.md` as MDX), Docusaurus admonitions, kramdown attribute lists (Jekyll), code fence titles,
// and embeds by URL or shortcode. Heading ids (`## Title {#id}`) stay: svc's renderer reads them. Each is rewritten at
// import into markdown svc renders, never inside code; what cannot be carried is named in a note.

const MDX_COMMENT = /\{\/\*[\s\S]*?\*\/\}/g;
const KRAMDOWN_IAL = /^[ \t]*\{:[^}\n]*\}[ \t]*(?:\r?\n|$)/gm;
const ADMONITION_OPEN = /^:{3,}[ \t]*([A-Za-z][\w-]*)(.*)$/;
const ADMONITION_CLOSE = /^:{3,}[ \t]*$/;
// What blocks() rewrites starts a line like this; a body without any is not lexed again.
const BLOCK_SYNTAX = /^(?::{3}|[ \t]*(?:`{3}|~{3}).*\btitle=|[ \t]*<?https?:\/\/(?:www\.|m\.|mobile\.)?(?:youtube\.com|youtu\.be|vimeo\.com|twitter\.com|x\.com)\/|[ \t]*(?:\{\{<|\{%)\s*(?:youtube|vimeo)\b)/im;
/**
 * Whether a line of `text` starts as BLOCK_SYNTAX needs (`:::`, or after blanks a fence, `{{<`,
 * `{%` or an http URL): one pass over the line starts instead of the pattern's attempt at each
 * character. Only `\n` is taken as a line's end: text with another line terminator is left to the pattern.
 */
function mayOpenBlockSyntax(text: string): boolean {
  if (text.includes('\r') || text.includes('\u2028') || text.includes('\u2029')) return true;
  for (let start = 0; start < text.length; ) {
    if (text.startsWith(':::', start)) return true;
    let i = start;
    while (text[i] === ' ' || text[i] === '\t') i++;
    const c = text[i];
    if (c === '`' || c === '~' || c === '{') return true;
    if ((c === '<' ? text.slice(i + 1, i + 5) : text.slice(i, i + 4)).toLowerCase() === 'http') return true;
    const next = text.indexOf('\n', i);
    if (next === -1) break;
    start = next + 1;
  }
  return false;
}
const FENCE_TITLE = /\btitle=(?:"([^"\n]*)"|'([^'\n]*)'|(\S+))/;

const YOUTUBE_URL = /^<?https?:\/\/(?:www\.|m\.)?(?:youtube\.com\/watch\?(?:\S*&)?v=|youtu\.be\/|youtube\.com\/shorts\/)([\w-]{11})\S*?>?$/i;
const VIMEO_URL = /^<?https?:\/\/(?:www\.)?vimeo\.com\/(\d+)\S*?>?$/i;
const TWEET_URL = /^<?https?:\/\/(?:www\.|mobile\.)?(?:twitter|x)\.com\/\w+\/status(?:es)?\/\d+\S*?>?$/i;
// Hugo's {{< youtube ID >}} / {{< youtube id="ID" >}} and Hexo's {% youtube ID %} (and vimeo), alone in a paragraph.
const VIDEO_SHORTCODE = /^(?:\{\{<|\{%)\s*(youtube|vimeo)\s+(?:id=)?["']?([\w-]+)["']?[^}]*(?:>\}\}|%\})$/i;

export const youtubeEmbed = (id: string) => `<iframe src="https://www.youtube-nocookie.com/embed/${id}" width="560" height="315" title="YouTube video" allowfullscreen></iframe>`;
export const vimeoEmbed = (id: string) => `<iframe src="https://player.vimeo.com/video/${id}" width="640" height="360" title="Vimeo video" allowfullscreen></iframe>`;

/**
 * The body in markdown svc renders as the old platform showed it; `note` is told each kind of
 * loss once (plural text, as ImportNotes.warn takes it).
 */
export function platformSyntax(body: string, note: (text: string) => void): string {
  const notes = new Set<string>();
  // Searched only up to the last `*/}`: an opening with no close after it would rescan the rest.
  const lastClose = body.lastIndexOf('*/}') + 3;
  let out = lastClose < 3 ? body : outsideCode(body.slice(0, lastClose), MDX_COMMENT, () => '') + body.slice(lastClose);
  if (body.includes('={{')) {
    // JSX's `style={{ ... }}` on an HTML tag (Docusaurus reads .md as MDX): not HTML, so the tag
    // would show as text; without it the tag is HTML again (svc renders no styles anyway).
    out = outsideCode(out, JSX_STYLE, (m) => {
      notes.add('JSX style attributes (style={{...}}) were left out: svc renders no styles');
      return m.replace(JSX_STYLE_ONE, '$1');
    });
  }
  if (out.includes('{:')) {
    out = outsideCode(out, KRAMDOWN_IAL, () => {
      notes.add('kramdown attribute lists ({: .class}) were left out (svc renders no classes)');
      return '';
    });
  }
  if (mayOpenBlockSyntax(out) && BLOCK_SYNTAX.test(out)) out = blocks(out, notes);
  // A tag needs a `<`: a scan for one character spares most bodies the patterns below.
  const tags = out.includes('<');
  if (tags && /<script\b/i.test(out)) {
    outsideCode(out, SCRIPT_ALL, (m) => {
      notes.add('Scripts in the body (embedded widgets such as a CodePen or a form) were left out: svc publishes no scripts (what they showed is not in the post)');
      return m;
    });
  }
  if (tags && /<(?:video|audio)\b/i.test(out)) {
    outsideCode(out, PLAYER_ALL, (m) => {
      notes.add('HTML video and audio players were kept in the markdown, but svc renders no players: readers see only the text inside them (link to the file, or embed the video from YouTube or Vimeo)');
      return m;
    });
  }
  for (const text of notes) note(text);
  return out;
}

const SCRIPT_ALL = /<script\b/gi;
const PLAYER_ALL = /<(?:video|audio)\b/gi;
// An HTML tag's JSX style attribute: `<span style={{color: "#686868"}}>`, its object holding no braces.
const JSX_STYLE = /<[A-Za-z][\w-]*\b[^<>{}]{0,500}?\sstyle=\{\{[^{}]{0,1000}\}\}/g;
const JSX_STYLE_ONE = /^(<[A-Za-z][\w-]*\b[^<>{}]*?)\sstyle=\{\{[^{}]*\}\}/;

// An inline image whose destination starts at the old site's root: `![alt](/assets/x.jpg)`, `![alt](</a b.jpg>)`.
const ROOT_IMAGE = /!\[[^\]\n]{0,1000}\]\([ \t]*<?\/(?!\/)/g;

/**
 * The body with its images given as `/paths` made absolute on the old site's address, as featured
 * images are: under svc's URLs such a path would name a file of the new site, which may not have it.
 */
export function rootImages(body: string, baseUrl: string): string {
  if (!body.includes('![') || !URL.canParse(baseUrl)) return body;
  const origin = new URL(baseUrl).origin;
  return outsideCode(body, ROOT_IMAGE, (m) => `${m.slice(0, -1)}${origin}/`);
}

/**
 * Replace what `pattern` finds except inside code spans and code blocks: every match is swapped
 * for a marker, the text lexed once, and markers that land in code put back as they were.
 */
export function outsideCode(text: string, pattern: RegExp, by: (match: string) => string): string {
  const spans = [...text.matchAll(pattern)].map((m) => [m.index, m.index + m[0].length] as const);
  return spansOutsideCode(text, spans, (start, end) => by(text.slice(start, end)));
}

/** outsideCode for spans found otherwise: in order, not overlapping. */
export function spansOutsideCode(text: string, spans: ReadonlyArray<readonly [number, number]>, by: (start: number, end: number) => string): string {
  if (spans.length === 0) return text;
  if (!mayHoldCode(text)) {
    // No code, and the markers below add no backtick, tilde, tab or space: every span is outside
    // code, replaced in order without marking and lexing the text. Where nothing changes the text
    // itself is returned: a body pieced together again would be copied whole at its next read.
    let out = '';
    let at = 0;
    let changed = false;
    for (const [start, end] of spans) {
      const piece = by(start, end);
      changed ||= piece.length !== end - start || piece !== text.slice(start, end);
      out += text.slice(at, start) + piece;
      at = end;
    }
    return changed ? out + text.slice(at) : text;
  }
  let marked = '';
  let at = 0;
  spans.forEach(([start, end], i) => {
    marked += `${text.slice(at, start)}\uE000${i}\uE001`;
    at = end;
  });
  marked += text.slice(at);
  const kept = new Set<number>();
  for (const code of codeTexts(marked)) for (const m of code.matchAll(/\uE000(\d+)\uE001/g)) kept.add(Number(m[1]));
  return marked.replace(/\uE000(\d+)\uE001/g, (_, i: string) => {
    const [start, end] = spans[Number(i)];
    return kept.has(Number(i)) ? text.slice(start, end) : by(start, end);
  });
}

/** Top-level blocks: admonitions become block quotes, fence titles captions, lone video URLs embeds. */
function blocks(text: string, notes: Set<string>): string {
  let depth = 0;
  let out = '';
  let atLineStart = true;
  // Lines of a block, each at the start of a line quoted as deep as the admonitions around it.
  const emit = (raw: string, admonitions: boolean) => {
    const lines = raw.split('\n');
    lines.forEach((line, i) => {
      if (i > 0) out += '\n';
      if (i === lines.length - 1 && line === '') return; // the raw ended its line
      if (i === 0 && !atLineStart) {
        out += line;
        return;
      }
      const open = admonitions ? ADMONITION_OPEN.exec(line) : null;
      if (open) {
        depth++;
        out += `${'> '.repeat(depth)}**${admonitionTitle(open[1], open[2].trim())}**\n${'>'.repeat(depth)}`;
      } else if (admonitions && depth > 0 && ADMONITION_CLOSE.test(line)) {
        depth--;
        out += '>'.repeat(depth);
      } else out += line === '' ? '>'.repeat(depth) : '> '.repeat(depth) + line;
    });
    atLineStart = raw.endsWith('\n');
  };
  for (const { type, raw } of markdownBlocks(text)) {
    const embed = type === 'paragraph' ? embedOf(raw.trim(), notes) : undefined;
    if (type === 'code') emit(titledFence(raw), false);
    else if (embed) emit(raw.replace(raw.trim(), embed), false);
    else emit(raw, true);
  }
  if (depth > 0) notes.add('Docusaurus admonitions (:::) without a closing ::: line were quoted to the end of the post');
  return out;
}

/** `:::note[Title]` (Docusaurus 3) or `:::note Title` (2) name their title; without one it is the kind's name. */
function admonitionTitle(kind: string, rest: string): string {
  if (rest.startsWith('[') && rest.endsWith(']') && rest.length > 2) return rest.slice(1, -1).trim();
  if (rest !== '' && !rest.startsWith('{') && !rest.startsWith('[')) return rest;
  return kind.charAt(0).toUpperCase() + kind.slice(1);
}

/** A fenced block whose info string has `title="main.ts"` (Docusaurus, Astro's Expressive Code) keeps the title as a caption. */
function titledFence(raw: string): string {
  const info = /^[ \t]*(`{3,}|~{3,})(.*)\n/.exec(raw);
  const title = info ? FENCE_TITLE.exec(info[2]) : null;
  if (!info || !title) return raw;
  const name = (title[1] ?? title[2] ?? title[3]).replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  const fence = raw.replace(info[0], `${info[1]}${info[2].replace(FENCE_TITLE, '').trim()}\n`);
  return `<figure>\n<figcaption>${name}</figcaption>\n\n${fence.replace(/\n*$/, '')}\n\n</figure>\n${raw.match(/\n*$/)![0]}`;
}

/** A paragraph that is only a YouTube or Vimeo link (or shortcode): the player, as the old site showed it. */
function embedOf(text: string, notes: Set<string>): string | undefined {
  const youtube = YOUTUBE_URL.exec(text);
  if (youtube) return youtubeEmbed(youtube[1]);
  const vimeo = VIMEO_URL.exec(text);
  if (vimeo) return vimeoEmbed(vimeo[1]);
  const shortcode = VIDEO_SHORTCODE.exec(text);
  if (shortcode) return shortcode[1].toLowerCase() === 'youtube' ? youtubeEmbed(shortcode[2]) : vimeoEmbed(shortcode[2]);
  if (TWEET_URL.test(text)) notes.add('Tweets embedded by their URL are shown as links (svc embeds no tweets)');
  return undefined;
}
