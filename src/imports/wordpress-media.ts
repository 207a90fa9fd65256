// WordPress's media shortcodes ([audio], [video], [playlist], [embed], [gallery]), which WordPress
// turns into players, embeds and image grids when it renders a post. svc renders markdown, so
// each becomes what it can show: a link to the audio or video file, the embedded URL alone on its
// line (a YouTube or Vimeo one becomes a player, see body-syntax.ts), the gallery's images.

// Attributes stop at the next [ too, so a shortcode never closed scans no further than the next one.
const SHORTCODE = /\[(audio|video|playlist|embed|gallery)\b([^\][]*)\](?:([^[]*)\[\/\1\])?/gi;
const ATTRIBUTE = /([\w-]+)=(?:"([^"]*)"|'([^']*)'|([^\s"']+))/g;
const MEDIA_SOURCES = ['src', 'mp3', 'm4a', 'ogg', 'oga', 'wav', 'flac', 'mp4', 'm4v', 'webm', 'ogv', 'wmv', 'flv', 'mov'];

export interface MediaContext {
  attachments: Map<string, { url: string; alt: string | undefined }>;
  /** Says what could not be carried (plural text, as ImportNotes.warn takes it). */
  note(text: string): void;
}

const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

function attributes(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of text.matchAll(ATTRIBUTE)) out.set(m[1].toLowerCase(), m[2] ?? m[3] ?? m[4]);
  return out;
}

/** The post's HTML with its media shortcodes replaced by HTML svc keeps. */
export function withMediaShortcodes(html: string, c: MediaContext): string {
  return html.replace(SHORTCODE, (whole, name: string, attrs: string, inner: string | undefined) => {
    const a = attributes(attrs);
    const kind = name.toLowerCase();
    if (kind === 'embed') {
      const url = (inner ?? '').trim();
      return /^https?:\/\/\S+$/i.test(url) ? `<p>${escapeHtml(url)}</p>` : whole;
    }
    if (kind === 'gallery') {
      const images = (a.get('ids') ?? a.get('include') ?? '').split(',').map((id) => c.attachments.get(id.trim())).filter((x) => x !== undefined);
      if (images.length === 0) {
        c.note('WordPress galleries without the ids of their images were left out (add the images to these posts)');
        return '';
      }
      return images.map((img) => `<p><img src="${escapeHtml(img.url)}" alt="${escapeHtml(img.alt ?? '')}"></p>`).join('');
    }
    if (kind === 'playlist') {
      c.note('WordPress playlists were left out (add links to their files to these posts)');
      return '';
    }
    // WordPress.com also takes the file as the shortcode's first word: `[audio https://.../a.mp3]`.
    const url = MEDIA_SOURCES.map((k) => a.get(k)).find(Boolean) ?? (inner?.trim() || /^\s*(https?:\/\/[^\s"'\]]+)/i.exec(attrs)?.[1]);
    if (!url || !/^https?:\/\//i.test(url)) return whole;
    c.note('WordPress audio and video players became links to their files (svc renders no players)');
    let file = url;
    try {
      file = decodeURIComponent(new URL(url).pathname.split('/').pop() || url);
    } catch {
      // not a URL or not percent-encoded: named as written
    }
    return `<p><a href="${escapeHtml(url)}">${kind === 'audio' ? 'Audio' : 'Video'}: ${escapeHtml(file)}</a></p>`;
  });
}
