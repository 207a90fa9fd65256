import { Parser } from 'htmlparser2';
import { spansOutsideCode } from './body-syntax.js';

// HTML written in a markdown body names files the way markdown links and images do: `<a href>`,
// `<img src>`, a `<video>`'s or `<audio>`'s `src` (and a video's `poster` image), a `<source
// src>` inside them. Found with the HTML parser the renderer's sanitiser uses, over the whole
// body: its positions are the body's, so a rewrite changes the attribute and nothing around it.

/** An attribute of an HTML tag in a markdown body that names a URL, and where it is in the body. */
export interface HtmlUrl {
  tag: string;
  name: string;
  /** The URL, entities decoded. */
  value: string;
  /** The attribute `name="value"` is body.slice(start, end). */
  start: number;
  end: number;
}

const URL_ATTRIBUTES: Record<string, string[] | undefined> = { a: ['href'], img: ['src'], video: ['src', 'poster'], audio: ['src'], source: ['src'] };
const MAY_HOLD = /<(?:a|img|video|audio|source)\b/i;

/**
 * The URL attributes of the HTML tags in a markdown body, outside code spans and blocks (HTML
 * shown as code names nothing). An attribute without a value (`<a href>`) names nothing either.
 */
export function htmlUrls(body: string): HtmlUrl[] {
  if (!body.includes('<') || !MAY_HOLD.test(body)) return []; // includes: a scan for one character, many times cheaper than the pattern's
  const found: HtmlUrl[] = [];
  let tag = '';
  // XML mode: no element's content is raw text, so an unclosed `<script>` or `<textarea>` shown
  // in a code block does not hide the tags after it (code is left out below).
  const parser = new Parser(
    {
      onopentagname(name) {
        tag = name;
      },
      onattribute(name, value, quote) {
        if (quote !== undefined && URL_ATTRIBUTES[tag]?.includes(name)) found.push({ tag, name, value, start: parser.startIndex, end: parser.endIndex });
      },
    },
    { xmlMode: true, lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: true },
  );
  parser.end(body);
  const byStart = new Map(found.map((u) => [u.start, u]));
  const outside: HtmlUrl[] = [];
  spansOutsideCode(body, found.map((u) => [u.start, u.end] as const), (start) => {
    outside.push(byStart.get(start)!);
    return '';
  });
  return outside;
}

/**
 * The body with some of the attributes htmlUrls found in it rewritten: `by` gives an attribute
 * its new value, null to leave the attribute out, or undefined to keep it as written.
 */
export function rewriteHtmlUrls(body: string, urls: HtmlUrl[], by: (url: HtmlUrl) => string | null | undefined): string {
  let out = '';
  let at = 0;
  for (const url of urls) {
    const value = by(url);
    if (value === undefined) continue;
    out += body.slice(at, url.start) + (value === null ? '' : `${url.name}="${value.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"`);
    at = url.end;
  }
  return out + body.slice(at);
}
