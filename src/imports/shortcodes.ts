import { outsideCode, spansOutsideCode, vimeoEmbed, youtubeEmbed } from './body-syntax.js';

// Template tags a static site expands when it builds a post (Hugo shortcodes `{{< name >}}`,
// Jekyll's and Hexo's Liquid-like tags and Eleventy's Nunjucks `{% name %}`) whose meaning is the
// platform's own, not a theme's: code highlighting, figures, callouts, video players, tweets and
// gists. Each becomes the markdown svc renders as the old site showed it (a link and a note where
// svc embeds nothing); any other tag stays as text and is named by the caller. Never inside code.

type Args = { named: Map<string, string>; positional: string[] };

// One argument: name="value", name='value', "value", 'value' or a bare word (commas between
// Nunjucks arguments allowed).
const ARG = /([\w-]+)=(?:"([^"]*)"|'([^']*)'|([^\s"',]+))|"([^"]*)"|'([^']*)'|([^\s"',=]+)/g;

function parseArgs(text: string): Args {
  const named = new Map<string, string>();
  const positional: string[] = [];
  for (const m of text.matchAll(ARG)) {
    if (m[1]) named.set(m[1].toLowerCase(), m[2] ?? m[3] ?? m[4] ?? '');
    else positional.push(m[5] ?? m[6] ?? m[7] ?? '');
  }
  return { named, positional };
}

const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** A fenced block holding `code` exactly, its fence longer than any backtick run inside. */
function fence(code: string, lang: string): string {
  const longest = Math.max(2, ...[...code.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${lang}\n${code.replace(/\n+$/, '')}\n${ticks}`;
}

/** A callout as a block quote under its title in bold, as Docusaurus admonitions are carried. */
function callout(title: string, inner: string): string {
  const lines = inner.trim().split('\n').map((l) => (l.trim() === '' ? '>' : `> ${l}`));
  return [...(title ? [`> **${title}**`, '>'] : []), ...lines].join('\n');
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const CALLOUT_KINDS = new Set(['note', 'tip', 'info', 'warning', 'warn', 'danger', 'caution', 'important', 'success', 'error', 'example', 'question', 'abstract', 'quote', 'bug', 'failure', 'default', 'primary']);

/** The title a callout shows: its own title argument, else its kind (`notice tip` -> Tip). */
function calloutTitle(args: Args): string {
  const given = args.named.get('title') ?? args.positional.find((p) => !CALLOUT_KINDS.has(p.toLowerCase()) && p.toLowerCase() !== 'md');
  if (given) return given;
  const kind = args.named.get('type') ?? args.positional.find((p) => CALLOUT_KINDS.has(p.toLowerCase()));
  return kind ? capitalise(kind.toLowerCase() === 'warn' ? 'warning' : kind.toLowerCase()) : '';
}

// Opening and closing tags of the pairs, each alone on its line: Hugo's `{{< name args >}}` ...
// `{{< /name >}}`, Liquid's and Nunjucks' `{% name args %}` ... `{% endname %}`. Found in one pass;
// an opening pairs with the next tag when that closes it (pairs do not nest), so a body of
// openings without closings costs no more than one with them.
const PAIR_TAG = /^[ \t]*(?:\{\{[<%]-?\s*(\/?)(highlight|notice|admonition|alert|callout|hint)\b([^\n]*?)-?[>%]\}\}|\{%-?\s*(end)?(highlight|codeblock|code|note|callout|notice|alert|blockquote|pullquote|raw)\b([^\n]*?)-?%\})[ \t]*$/gim;
// A Liquid or Nunjucks callout held on one line (`{% callout %}text{% endcallout %}`); its text
// holds no other `{%`, so each opening is read up to the next tag at most.
const INLINE_PAIR = /^[ \t]*\{%-?\s*(note|callout|notice|alert)\b([^\n%]*)-?%\}((?:[^{\n]|\{(?!%))*)\{%-?\s*end\1\s*-?%\}[ \t]*$/gim;
// Arguments hold no braces: each opening is read up to the next brace at most.
const HUGO_SINGLE = /\{\{<\s*(figure|tweet|x|gist|instagram|vimeo_simple|youtube_simple)\b([^{}\n]*?)\/?>\}\}/gi;
// Arguments may hold a `%` not closing the tag (`{% iframe url 100% 400 %}`).
const LIQUID_SINGLE = /\{%-?\s*(youtubeEmbed|gist|tweet|twitter|link|img|iframe|asset_img|asset_path|asset_link|post_link|post_path)\b((?:[^{}%\n]|%(?!\}))*?)-?%\}/gi;
// `{% raw %}...{% endraw %}` within a line (Hexo, Jekyll): the text between, as written.
const INLINE_RAW = /\{%-?\s*raw\s*-?%\}((?:[^{\n]|\{(?!%-?\s*endraw\b))*)\{%-?\s*endraw\s*-?%\}/g;
// Where Hexo's `link`, `img` and `iframe` tags find their address among their words.
const ADDRESS = /^(?:https?:)?\/\/|^\/|^\.{0,2}\/|\.(?:jpe?g|png|gif|webp|avif|svg)$/i;
// Eleventy's `url` filter on a literal path: `{{ '/posts/firstpost/' | url }}` is that path.
const URL_FILTER = /\{\{-?\s*(?:"([^"\n]*)"|'([^'\n]*)')\s*\|\s*url\s*-?\}\}/g;
// A Nunjucks, Jinja or Twig comment (`{# ... #}`, Eleventy): the old site showed nothing. A heading's
// `{#id}` has no closing `#}` on its line and is left alone.
const COMMENT = /\{#(?!\w[\w-]*\})[\s\S]*?#\}/g;
// A variable of the post's own front matter (`{{ external_url }}`, Jekyll's `{{ page.title }}`), or
// Nunjucks' `urlencode` of one.
const VARIABLE = /\{\{-?\s*(?:page\.)?([A-Za-z_]\w*)\s*(\|\s*urlencode\s*)?-?\}\}/g;

const TWEET_NOTE = 'Tweets embedded by their URL are shown as links (svc embeds no tweets)';

const linkText = (text: string) => text.replace(/[[\]]/g, '');

/** A markdown image of `src` with its alt text and title. */
const image = (src: string, alt: string, title: string | undefined) =>
  `![${linkText(alt)}](<${src}>${title ? ` "${title.replace(/"/g, '\\"')}"` : ''})`;

function single(name: string, argText: string, notes: Set<string>): string | null {
  const args = parseArgs(argText);
  const at = (key: string, i: number) => args.named.get(key) ?? args.positional[i];
  switch (name.toLowerCase()) {
    case 'figure': {
      const src = at('src', 0);
      if (!src) return null;
      const caption = args.named.get('caption') ?? args.named.get('title');
      const img = `<img src="${escapeHtml(src)}" alt="${escapeHtml(args.named.get('alt') ?? caption ?? '')}">`;
      return caption ? `<figure>${img}<figcaption>${escapeHtml(caption)}</figcaption></figure>` : img;
    }
    case 'tweet':
    case 'twitter':
    case 'x': {
      const id = args.named.get('id') ?? args.positional.find((p) => /^\d+$/.test(p));
      if (!id) return null;
      const user = args.named.get('user') ?? args.positional.find((p) => !/^\d+$/.test(p)) ?? 'i';
      notes.add(TWEET_NOTE);
      const url = `https://x.com/${user}/status/${id}`;
      return `<${url}>`;
    }
    case 'gist': {
      const [user, id] = [at('user', 0), at('id', 1)];
      if (!user || !id) return null;
      notes.add('GitHub gists embedded by a shortcode are shown as links (svc runs no embedded scripts)');
      return `<https://gist.github.com/${user}/${id}>`;
    }
    case 'instagram': {
      const id = at('id', 0);
      if (!id) return null;
      notes.add('Instagram posts embedded by a shortcode are shown as links (svc embeds no Instagram posts)');
      return `<https://www.instagram.com/p/${id}/>`;
    }
    case 'link': {
      // Jekyll's `{% link _posts/x.md %}` is that file's URL (followed to the imported post);
      // Hexo's `{% link text url [external] [title] %}` a link with its words as text.
      const words = args.positional;
      if (words.length === 1) return words[0];
      const at = words.findIndex((w) => ADDRESS.test(w));
      if (at <= 0) return null;
      const title = words.slice(at + 1).find((w) => !/^(true|false)$/i.test(w));
      return `[${words.slice(0, at).join(' ')}](<${words[at]}>${title ? ` "${title.replace(/"/g, '\\"')}"` : ''})`;
    }
    case 'img': {
      // Hexo's and Octopress' `{% img [class] /path [width] [height] '"title" "alt"' %}`.
      const src = args.positional.find((w) => ADDRESS.test(w));
      if (!src) return null;
      const quoted = /"([^"]*)"(?:\s+"([^"]*)")?/.exec(args.positional.find((w) => w.includes('"')) ?? '');
      const [title, alt] = [quoted?.[1], quoted?.[2] ?? quoted?.[1] ?? ''];
      return image(src, alt, title);
    }
    // Hexo's asset tags name a file of the post's asset folder (`post_asset_folder: true`): written
    // as a path relative to the post, which the image import looks for in that folder.
    case 'asset_img': {
      // `{% asset_img [class] slug [width] [height] [title text] %}` or `... '"title" "alt"' %}`.
      const words = args.positional;
      const at = words.findIndex((w) => ADDRESS.test(w));
      if (at === -1) return null;
      const rest = words.slice(at + 1).filter((w) => !/^\d+(?:px|%)?$/.test(w));
      if (rest.some((w) => w.includes('"'))) return single('img', argText, notes);
      return image(words[at], rest.join(' '), rest.join(' '));
    }
    case 'asset_path':
      return args.positional[0] ?? null;
    case 'asset_link': {
      const [slug, ...title] = args.positional.filter((w) => !/^(true|false)$/i.test(w));
      return slug ? `[${linkText(title.join(' ') || slug)}](<${slug}>)` : null;
    }
    // Hexo's `{% post_link slug [title] %}` and `{% post_path slug %}` name a post by its file under
    // `_posts` (no extension): written as a link to that file, which the import follows to where
    // svc serves the post.
    case 'post_link': {
      const [slug, ...title] = args.positional.filter((w) => !/^(true|false)$/i.test(w));
      return slug ? `[${linkText(title.join(' ') || slug)}](<${slug}.md>)` : null;
    }
    case 'post_path':
      return args.positional[0] ? `${args.positional[0]}.md` : null;
    case 'iframe': {
      const url = args.positional[0];
      if (!url || !/^https?:\/\//i.test(url)) return null;
      const youtube = /(?:youtube(?:-nocookie)?\.com\/(?:embed\/|watch\?v=)|youtu\.be\/)([\w-]{11})/i.exec(url)?.[1];
      const vimeo = /player\.vimeo\.com\/video\/(\d+)|vimeo\.com\/(\d+)/i.exec(url);
      if (youtube) return youtubeEmbed(youtube);
      if (vimeo) return vimeoEmbed(vimeo[1] ?? vimeo[2]);
      notes.add('Pages embedded in an iframe are shown as links (svc embeds only YouTube and Vimeo players)');
      return `<${url}>`;
    }
    case 'vimeo_simple': {
      const id = at('id', 0);
      return id && /^\d+$/.test(id) ? vimeoEmbed(id) : null;
    }
    case 'youtube_simple':
    case 'youtubeembed': {
      const id = at('id', 0);
      return id && /^[\w-]{11}$/.test(id) ? youtubeEmbed(id) : null;
    }
  }
  return null;
}

/** Code highlighting pairs become fenced code; callout pairs block quotes under their title. */
function pair(name: string, argText: string, inner: string): string {
  const args = parseArgs(argText);
  const kind = name.toLowerCase();
  if (kind === 'raw') return inner; // Hexo's and Jekyll's raw: the text as written, tags and all
  if (kind === 'pullquote') return callout('', inner);
  if (kind === 'blockquote') return quoteWithSource(argText, inner);
  if (kind === 'highlight' || kind === 'code' || kind === 'codeblock') {
    const lang = args.named.get('lang') ?? args.positional.map((p) => /^lang:(.+)$/.exec(p)?.[1]).find(Boolean) ?? (kind === 'highlight' ? args.positional[0] : undefined);
    return fence(inner, /^[\w+#.-]+$/.test(lang ?? '') ? lang! : '');
  }
  return callout(calloutTitle(args), inner);
}

/**
 * Hexo's `{% blockquote [author[, source]] [link] [link title] %}`: the quote, then who said it
 * and where (linked when a link is given), as Hexo shows under the quote.
 */
function quoteWithSource(argText: string, inner: string): string {
  const words = argText.trim().split(/\s+/).filter(Boolean);
  const at = words.findIndex((w) => /^https?:\/\//i.test(w));
  const said = (at === -1 ? words : words.slice(0, at)).join(' ');
  const [author, source] = said.includes(',') ? [said.slice(0, said.indexOf(',')).trim(), said.slice(said.indexOf(',') + 1).trim()] : [said.trim(), ''];
  const link = at === -1 ? undefined : words[at];
  const linkTitle = at === -1 ? '' : words.slice(at + 1).join(' ');
  const cite = link ? `[${source || linkTitle || link}](<${link}>)` : source;
  const footer = [author ? `**${author}**` : '', cite].filter(Boolean).join(', ');
  return callout('', footer ? `${inner.trim()}\n\n— ${footer}` : inner);
}

/**
 * The body with the platform tags it understands rewritten, and the post's front-matter values
 * put where the body names them; `notes` gets what is shown differently. Cheap when the body holds no `{{`, `{%` or `#}`.
 */
export function templateTags(body: string, notes: Set<string>, frontMatter: Record<string, unknown> = {}): string {
  if (!body.includes('{{') && !body.includes('{%') && !body.includes('#}')) return body;
  const lastComment = body.lastIndexOf('#}');
  let out = lastComment === -1 ? body : within(body, blockEnd(body, lastComment), COMMENT, () => '');
  out = pairs(out);
  out = outsideCode(out, INLINE_PAIR, (m) => replaceOne(m, INLINE_PAIR, (g) => pair(g[1], g[2], g[3])));
  out = outsideCode(out, HUGO_SINGLE, (m) => replaceOne(m, HUGO_SINGLE, (g) => single(g[1], g[2], notes) ?? m));
  out = outsideCode(out, LIQUID_SINGLE, (m) => replaceOne(m, LIQUID_SINGLE, (g) => single(g[1], g[2], notes) ?? m));
  out = outsideCode(out, URL_FILTER, (m) => replaceOne(m, URL_FILTER, (g) => g[1] ?? g[2]));
  out = outsideCode(out, INLINE_RAW, (m) => replaceOne(m, INLINE_RAW, (g) => g[1]));
  const value = (name: string) => {
    const v = Object.hasOwn(frontMatter, name) ? frontMatter[name] : undefined;
    return typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;
  };
  return outsideCode(out, VARIABLE, (m) =>
    replaceOne(m, VARIABLE, (g) => {
      const v = value(g[1]);
      return v === undefined ? m : g[2] ? encodeURIComponent(v) : v;
    }),
  );
}

/** Every opening tag followed by its own closing tag, rewritten (code highlighting, callouts). */
function pairs(text: string): string {
  const tags = [...text.matchAll(PAIR_TAG)].map((m) => ({
    start: m.index,
    end: m.index + m[0].length,
    closing: Boolean(m[1] || m[4]),
    name: (m[2] ?? m[5]).toLowerCase(),
    args: m[3] ?? m[6] ?? '',
  }));
  const spans: Array<readonly [number, number]> = [];
  const found: Array<{ name: string; args: string; inner: string }> = [];
  for (let i = 0; i + 1 < tags.length; i++) {
    const [open, close] = [tags[i], tags[i + 1]];
    if (open.closing || !close.closing || open.name !== close.name) continue;
    spans.push([open.start, close.end]);
    found.push({ name: open.name, args: open.args, inner: text.slice(open.end + 1, close.start).replace(/\n$/, '') });
    i++;
  }
  const byStart = new Map(spans.map(([start], i) => [start, found[i]]));
  return spansOutsideCode(text, spans, (start) => {
    const f = byStart.get(start)!;
    return pair(f.name, f.args, f.inner);
  });
}

/** Where the block holding `index` ends (the next blank line), so code spans around it stay whole. */
function blockEnd(text: string, index: number): number {
  const blank = text.indexOf('\n\n', index);
  return blank === -1 ? text.length : blank;
}

/** outsideCode on the text up to `end` only: the rest holds no match, and is not searched again. */
const within = (text: string, end: number, pattern: RegExp, by: (match: string) => string): string =>
  outsideCode(text.slice(0, end), pattern, by) + text.slice(end);

/** `pattern` applied to the one match outsideCode hands back. */
function replaceOne(match: string, pattern: RegExp, by: (groups: RegExpExecArray) => string): string {
  const re = new RegExp(pattern.source, pattern.flags.replace('g', ''));
  const g = re.exec(match);
  return g ? by(g) : match;
}

// A template tag or variable as it opens: `{{< name`, `{{% name`, `{% name`, `{{ name`.
const ANY_TAG = /\{\{[<%]-?\s*\/?[\w.-]+|\{%-?\s*[\w.-]+|\{\{-?\s*[\w.'"][^}\n]{0,80}\}\}/g;

/** The template tags and variables left in a body outside code, as written (the first 8), for the note that names them. */
export function remainingTags(body: string): string[] {
  if (!body.includes('{{') && !body.includes('{%')) return [];
  const names = new Set<string>();
  outsideCode(body, ANY_TAG, (m) => {
    const name = m.replace(/^\{\{[<%]-?\s*\/?/, '{{< ').replace(/^\{%-?\s*/, '{% ');
    if (!/^\{% end/.test(name) && names.size < 8) names.add(name.startsWith('{{ ') || name.startsWith('{{-') ? m : name.startsWith('{{<') ? `${name} >}}` : `${name} %}`);
    return m;
  });
  return [...names];
}
