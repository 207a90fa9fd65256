import { assertRenderable } from '../articles/body-limits.js';
import { renderHtml } from '../lib/markdown.js';

// Ghost stores a post's body as a Lexical document (Ghost 5+) or a Mobiledoc (Ghost 1-4), both
// JSON trees, beside the `html` it rendered from them. When an export holds no html, these
// render the tree to plain HTML, which then goes through the same HTML -> markdown step.

type Json = Record<string, any>;

const esc = (s: unknown) => String(s ?? '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Card types neither renderer knows (product, signup, audio ...): the caller reports them once. */
export type UnknownCards = Set<string>;

/** Cards both formats share, by name and payload. */
function card(name: string, p: Json, unknown: UnknownCards): string {
  switch (name) {
    case 'markdown':
    case 'card-markdown': {
      const markdown = String(p.markdown ?? '');
      assertRenderable('a markdown card', markdown);
      return renderHtml(markdown);
    }
    case 'html':
    case 'embed':
      return String(p.html ?? '');
    case 'image':
      return figure(p.src, p.alt, p.caption, p.href);
    case 'paywall':
      // The divider between the free preview and the members' part, as Ghost renders it.
      return '<!--members-only-->';
    case 'gallery':
      return (p.images ?? []).map((i: Json) => figure(i.src, i.alt, i.caption)).join('') + (p.caption ? `<p>${p.caption}</p>` : '');
    case 'code':
    case 'codeblock':
      return `<pre><code${p.language ? ` class="language-${esc(p.language)}"` : ''}>${esc(p.code)}</code></pre>${p.caption ? `<p>${p.caption}</p>` : ''}`;
    case 'hr':
    case 'horizontalrule':
      return '<hr>';
    case 'bookmark':
      return `<p><a href="${esc(p.url)}">${esc(p.metadata?.title ?? p.url)}</a></p>${p.metadata?.description ? `<p>${esc(p.metadata.description)}</p>` : ''}`;
    case 'callout':
      return `<blockquote>${p.calloutText ?? ''}</blockquote>`;
    case 'button':
      return `<p><a href="${esc(p.buttonUrl)}">${esc(p.buttonText)}</a></p>`;
    case 'toggle':
      return `<h4>${p.heading ?? ''}</h4>${p.content ?? ''}`;
    default:
      unknown.add(name);
      return '';
  }
}

/** An image card; `href` (a linked image) wraps the image in its link, as Ghost renders it. */
const figure = (src: unknown, alt: unknown, caption: unknown, href?: unknown) => {
  if (!src) return '';
  const img = `<img src="${esc(src)}" alt="${esc(alt)}">`;
  return `<figure>${href ? `<a href="${esc(href)}">${img}</a>` : img}${caption ? `<figcaption>${caption}</figcaption>` : ''}</figure>`;
};

const FORMATS: Array<[number, string]> = [[1, 'strong'], [2, 'em'], [4, 's'], [16, 'code'], [32, 'sub'], [64, 'sup']];

/** A Lexical document (the post's `lexical` column, a JSON string) -> HTML. */
export function lexicalToHtml(doc: string | Json, unknown: UnknownCards): string {
  const root = (typeof doc === 'string' ? JSON.parse(doc) : doc)?.root;
  return children(root, unknown);
}

function children(node: Json | undefined, unknown: UnknownCards): string {
  return (node?.children ?? []).map((c: Json) => lexicalNode(c, unknown)).join('');
}

function lexicalNode(n: Json, unknown: UnknownCards): string {
  const inner = () => children(n, unknown);
  switch (n.type) {
    case 'text':
    case 'extended-text': {
      let out = esc(n.text);
      for (const [bit, tag] of FORMATS) if ((Number(n.format) & bit) !== 0) out = `<${tag}>${out}</${tag}>`;
      return out;
    }
    case 'linebreak':
      return '<br>';
    case 'tab':
      return ' ';
    case 'paragraph':
      return `<p>${inner()}</p>`;
    case 'heading':
    case 'extended-heading':
      return /^h[1-6]$/.test(n.tag) ? `<${n.tag}>${inner()}</${n.tag}>` : `<h2>${inner()}</h2>`;
    case 'quote':
    case 'extended-quote':
    case 'aside':
      return `<blockquote>${inner()}</blockquote>`;
    case 'list': {
      const tag = n.listType === 'number' ? 'ol' : 'ul';
      return `<${tag}${tag === 'ol' && n.start > 1 ? ` start="${Number(n.start)}"` : ''}>${inner()}</${tag}>`;
    }
    case 'listitem':
      return `<li>${inner()}</li>`;
    case 'link':
    case 'autolink':
      return `<a href="${esc(n.url)}">${inner()}</a>`;
    default:
      return n.children ? inner() : card(n.type, n, unknown);
  }
}

/** A Mobiledoc (the post's `mobiledoc` column, a JSON string) -> HTML. */
export function mobiledocToHtml(doc: string | Json, unknown: UnknownCards): string {
  const m: Json = typeof doc === 'string' ? JSON.parse(doc) : doc;
  const markups: Array<[string, string[]?]> = m.markups ?? [];
  const atoms: Array<[string, string, Json]> = m.atoms ?? [];
  const cards: Array<[string, Json]> = m.cards ?? [];
  const markers = (list: any[][]): string => {
    let out = '';
    const open: string[] = [];
    for (const [kind, opens, closeCount, value] of list) {
      for (const i of opens ?? []) {
        const [tag, attrs = []] = markups[i] ?? ['span'];
        const attr = tag === 'a' ? ` href="${esc(attrs[attrs.indexOf('href') + 1])}"` : '';
        out += `<${tag}${attr}>`;
        open.push(tag);
      }
      // A text marker holds its text; an atom marker (e.g. a soft return) an index into atoms.
      out += kind === 1 ? (atoms[value]?.[0] === 'soft-return' ? '<br>' : esc(atoms[value]?.[1])) : esc(value);
      for (let i = 0; i < closeCount; i++) out += `</${open.pop()}>`;
    }
    while (open.length) out += `</${open.pop()}>`;
    return out;
  };
  return (m.sections ?? [])
    .map((s: any[]) => {
      const [type] = s;
      if (type === 1) {
        const tag = /^(p|h[1-6]|blockquote|aside)$/i.test(s[1]) ? String(s[1]).toLowerCase().replace('aside', 'blockquote') : 'p';
        return `<${tag}>${markers(s[2])}</${tag}>`;
      }
      if (type === 3) {
        const tag = s[1] === 'ol' ? 'ol' : 'ul';
        return `<${tag}>${(s[2] as any[][][]).map((item) => `<li>${markers(item)}</li>`).join('')}</${tag}>`;
      }
      if (type === 10) {
        const [name, payload] = cards[s[1]] ?? ['unknown', {}];
        return card(name, payload, unknown);
      }
      if (type === 2) return figure(s[1], '', '');
      return '';
    })
    .join('');
}
