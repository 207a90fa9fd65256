import { markdownBlocks } from '../lib/markdown.js';

// MDX is markdown with JavaScript: `import`/`export` statements and JSX components (`<Chart />`,
// `<Aside>...</Aside>`, capitalised) that the old site rendered with its own code. svc publishes
// markdown, so these are left out (the post's text stays) and the caller says so.

const STATEMENT = /^(?:import|export)\s/;
const COMPONENT_BLOCK = /^\s*<\/?[A-Z][\w.]*(?:[\s/>]|$)/;
// An HTML-looking element with a JavaScript expression as an attribute (`<button onClick={...}>`) is JSX too.
const JSX_BLOCK = /^\s*<[a-z][\w.-]*\s[^\n]*?=\{/;
// An inline component tag (opening, closing or self-closing); bounded by < and >, so linear.
const COMPONENT_TAG = /<\/?[A-Z][\w.]*(?:\s[^<>]*)?\/?>/g;

/** The body without MDX's statements and components (its `{/* comments *\/}` go in body-syntax.ts); `changed` when any were there. */
export function stripMdx(body: string): { body: string; changed: boolean } {
  let changed = false;
  let dropped = false;
  const out = markdownBlocks(body).map(({ type, raw }) => {
    const after = dropped;
    dropped = false;
    if (type === 'space') return after ? '' : raw; // the blank lines after a block left out go with it
    if (type === 'code') return raw;
    const prose = type === 'paragraph' || type === 'text' || type === 'html';
    if ((prose && (STATEMENT.test(raw) || JSX_BLOCK.test(raw))) || (type === 'html' && COMPONENT_BLOCK.test(raw))) {
      changed = dropped = true;
      return '';
    }
    const cleaned = raw.replace(COMPONENT_TAG, '');
    if (cleaned !== raw) changed = true;
    return cleaned;
  });
  return { body: out.join('').replace(/^\s+/, ''), changed };
}
