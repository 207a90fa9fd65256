// WordPress's classic editor stores paragraphs as blank-line-separated text, and WordPress adds
// the <p> and <br> only when it renders a post (wpautop). An export holds the stored form, so
// this applies the same rule before HTML -> markdown: blank lines separate paragraphs, a single
// newline is a line break, block elements stand on their own and are not wrapped, <pre> is left
// as it is. Every pattern here is linear in the length of the text.

const BLOCKS = '(?:table|thead|tfoot|caption|col|colgroup|tbody|tr|td|th|div|dl|dd|dt|ul|ol|li|pre|form|map|area|blockquote|address|math|style|p|h[1-6]|hr|fieldset|legend|section|article|aside|hgroup|header|footer|nav|figure|figcaption|details|menu|summary)';
const OPEN_BLOCK = new RegExp(`(<${BLOCKS}[\\s/>])`, 'gi');
const CLOSE_BLOCK = new RegExp(`(</${BLOCKS}>)`, 'gi');
const LONE_BLOCK_TAG = new RegExp(`<p>\\s*(</?${BLOCKS}[^<>]*>)\\s*</p>`, 'gi');
const P_BEFORE_BLOCK = new RegExp(`<p>\\s*(</?${BLOCKS}[^<>]*>)`, 'gi');
const P_AFTER_BLOCK = new RegExp(`(</?${BLOCKS}[^<>]*>)\\s*</p>`, 'gi');
const BR_AFTER_BLOCK = new RegExp(`(</?${BLOCKS}[^<>]*>)\\s*<br />`, 'gi');
const BR_BEFORE_BLOCK = /<br \/>(\s*<\/?(?:p|li|div|dl|dd|dt|th|pre|td|ul|ol)[^<>]*>)/gi;

/** Does this WordPress content come from the classic editor (no block comments)? */
export const isClassic = (html: string) => !/<!-- wp:/.test(html);

/** WordPress's paragraph rule for classic-editor content. */
export function autop(text: string): string {
  if (text.trim() === '') return '';
  const held: string[] = [];
  const hold = (m: string) => `<pre>\u0000${held.push(m) - 1}\u0000</pre>`;
  // <pre> keeps its newlines; so do <script> and <style>, dropped later anyway.
  let s = `${holdElements(text.replace(/\r\n?/g, '\n'), ['pre', 'script', 'style'], hold)}\n`;
  s = s.replace(/<br\s*\/?>\s*<br\s*\/?>/gi, '\n\n');
  s = s.replace(OPEN_BLOCK, '\n\n$1').replace(CLOSE_BLOCK, '$1\n\n');
  // A newline inside a tag (between attributes) is not a line break.
  s = s.replace(/<[^<>]*>/g, (tag) => tag.replace(/\s*\n\s*/g, ' '));
  s = s
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .split(/\n{2,}/)
    .filter((chunk) => chunk.trim() !== '')
    .map((chunk) => `<p>${chunk.replace(/^\n+|\n+$/g, '')}</p>\n`)
    .join('');
  s = s.replace(/<p>\s*<\/p>/g, '');
  s = s.replace(/<p>([^<]+)<\/(div|address|form)>/gi, '<p>$1</p></$2>');
  s = s.replace(LONE_BLOCK_TAG, '$1');
  s = s.replace(/<p>(<li\b)/gi, '$1');
  s = s.replace(/<p><blockquote([^<>]*)>/gi, '<blockquote$1><p>').replace(/<\/blockquote><\/p>/gi, '</p></blockquote>');
  s = s.replace(P_BEFORE_BLOCK, '$1').replace(P_AFTER_BLOCK, '$1');
  // Every other newline is a line break (trailing blanks trimmed line by line: linear).
  s = s.split('\n').map((line) => line.trimEnd()).join('\n').replace(/(?<!<br \/>)\n/g, '<br />\n');
  s = s.replace(BR_AFTER_BLOCK, '$1').replace(BR_BEFORE_BLOCK, '$1');
  s = s.replace(/\n<\/p>$/, '</p>');
  return s.replace(/<pre>\u0000(\d+)\u0000<\/pre>/g, (_m, i: string) => held[Number(i)]).trim();
}

/**
 * Each of these elements, open tag to its first close tag, replaced by `hold(it)`; found with
 * indexOf, so an opening tag that is never closed costs one search, not one per character.
 */
function holdElements(text: string, names: string[], hold: (element: string) => string): string {
  const open = new RegExp(`<(${names.join('|')})[\\s>]`, 'gi');
  let out = '';
  let at = 0;
  const unclosed = new Set<string>();
  for (let m = open.exec(text); m; m = open.exec(text)) {
    const close = `</${m[1].toLowerCase()}>`;
    const closing = new RegExp(close, 'gi');
    closing.lastIndex = m.index;
    const end = unclosed.has(close) ? -1 : (closing.exec(text)?.index ?? -1);
    if (end === -1) {
      unclosed.add(close);
      continue;
    }
    out += text.slice(at, m.index) + hold(text.slice(m.index, end + close.length));
    at = end + close.length;
    open.lastIndex = at;
  }
  return out + text.slice(at);
}
