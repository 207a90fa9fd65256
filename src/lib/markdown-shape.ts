/**
 * The structure of a markdown body that decides what marked costs, read in one linear pass over
 * its characters without marked: marked's time grows with the square of the emphasis delimiters
 * in one paragraph and faster still with nesting (lists, blockquotes), and deep blockquotes
 * overflow its stack. docs/content-api.md, "Body limits", says what svc accepts.
 */
export interface BodyShape {
  /** Containers (list items, blockquotes) around the deepest line, and that line (1-based). */
  depth: { value: number; line: number };
  /** Inline markup characters in the paragraph holding the most, and its first line. */
  paragraph: { value: number; line: number };
  /** The sum over lines of their depth squared: marked re-reads a nested line once per level around it. */
  nesting: number;
  /** The sum over paragraphs of markup characters times length: marked's work on emphasis grows with both. */
  work: number;
  /**
   * Footnote references and definitions (each `[^`): marked-footnote looks each reference up
   * among all the definitions, and renders each at several times the cost of plain text.
   */
  footnotes: number;
}

// The characters marked's inline tokenizer tries to pair (emphasis, strikethrough, code spans,
// HTML and autolinks, images): the ones whose count in one paragraph grows its time faster than linearly.
const MARKUP = new Uint8Array(128);
for (const c of '*_~`<!') MARKUP[c.charCodeAt(0)] = 1;

const SPACE = 32;
const TAB = 9;

/** The shape of `markdown`; linear in its length. */
export function bodyShape(markdown: string): BodyShape {
  const shape: BodyShape = { depth: { value: 0, line: 0 }, paragraph: { value: 0, line: 0 }, nesting: 0, work: 0, footnotes: occurrences(markdown, '[^') };
  let inParagraph = 0;
  let paragraphLine = 0;
  let paragraphLength = 0;
  let lineNo = 0;
  for (let start = 0; start <= markdown.length; ) {
    const nl = markdown.indexOf('\n', start);
    const end = nl === -1 ? markdown.length : nl;
    lineNo++;
    const { depth, blank, opensBlock, content } = lineStructure(markdown, start, end);
    if (depth > shape.depth.value) shape.depth = { value: depth, line: lineNo };
    shape.nesting += depth * depth;
    if (blank || opensBlock) {
      shape.work += inParagraph * paragraphLength;
      inParagraph = 0;
      paragraphLength = 0;
      paragraphLine = lineNo;
    }
    let markup = 0;
    for (let i = content; i < end; i++) {
      const code = markdown.charCodeAt(i);
      if (code < 128) markup += MARKUP[code];
    }
    inParagraph += markup;
    paragraphLength += end - content + 1;
    if (inParagraph > shape.paragraph.value) shape.paragraph = { value: inParagraph, line: paragraphLine || 1 };
    start = end + 1;
  }
  shape.work += inParagraph * paragraphLength;
  return shape;
}

function occurrences(s: string, what: string): number {
  let count = 0;
  for (let i = s.indexOf(what); i !== -1; i = s.indexOf(what, i + what.length)) count++;
  return count;
}

/**
 * One line's containers: its indentation (a nested list indents at least two columns a level)
 * plus the list markers and `>` stacked at its start; whether it is blank, or starts an inline
 * run of its own (a list item or a heading); where its text starts.
 */
function lineStructure(s: string, start: number, end: number): { depth: number; blank: boolean; opensBlock: boolean; content: number } {
  let i = start;
  let columns = 0;
  while (i < end && (s.charCodeAt(i) === SPACE || s.charCodeAt(i) === TAB)) columns += s.charCodeAt(i++) === TAB ? 4 : 1;
  if (i >= end || (i === end - 1 && s[i] === '\r')) return { depth: 0, blank: true, opensBlock: false, content: end };
  let markers = 0;
  let opensBlock = false;
  for (;;) {
    const c = s[i];
    let next = -1;
    if (c === '>') next = i + 1;
    else if ((c === '-' || c === '*' || c === '+') && isGap(s, i + 1, end)) {
      next = i + 1;
      opensBlock = true;
    } else if (c >= '0' && c <= '9') {
      let j = i;
      while (j < end && j - i < 9 && s[j] >= '0' && s[j] <= '9') j++;
      if ((s[j] === '.' || s[j] === ')') && isGap(s, j + 1, end)) {
        next = j + 1;
        opensBlock ||= s.slice(i, j) === '1';
      }
    }
    if (next === -1) break;
    markers++;
    i = next;
    while (i < end && (s.charCodeAt(i) === SPACE || s.charCodeAt(i) === TAB)) i++;
  }
  if (s[i] === '#') opensBlock = true;
  return { depth: markers === 0 ? 0 : Math.floor(columns / 2) + markers, blank: false, opensBlock, content: i };
}

const isGap = (s: string, i: number, end: number): boolean => i >= end || s[i] === ' ' || s[i] === '\t' || s[i] === '\r';
