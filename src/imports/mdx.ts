import { markdownBlocks } from '../lib/markdown.js';

// MDX is markdown with JavaScript: `import`/`export` statements and JSX components (`<Chart />`,
// `<Aside>...</Aside>`, capitalised) that the old site rendered with its own code. svc publishes
// markdown, so these are left out (the post's text stays) and the caller says so.

const STATEMENT = /^(?:import|export)\s/;
const COMPONENT_BLOCK = /^\s*<\/?[A-Z][\w.]*(?:[\s/>]|$)/;
// An inline component tag (opening, closing or self-closing); bounded by < and >, so linear.
const COMPONENT_TAG = /<\/?[A-Z][\w.]*(?:\s[^<>]*)?\/?>/g;
const COMMENT = /\{\/\*[\s\S]*?\*\/\}/g;

/** The body without MDX's statements, components and `{/* comments *\/}`; `changed` when any were there. */
export function stripMdx(body: string): { body: string; changed: boolean } {
  let changed = false;
  let dropped = false;
  const out = markdownBlocks(body).map(({ type, raw }) => {
    const after = dropped;
    dropped = false;
    if (type === 'space') return after ? '' : raw; // the blank lines after a block left out go with it
    if (type === 'code') return raw;
    if (((type === 'paragraph' || type === 'text') && STATEMENT.test(raw)) || (type === 'html' && COMPONENT_BLOCK.test(raw))) {
      changed = dropped = true;
      return '';
    }
    const cleaned = raw.replace(COMMENT, '').replace(COMPONENT_TAG, '');
    if (cleaned !== raw) changed = true;
    return cleaned;
  });
  return { body: out.join('').replace(/^\s+/, ''), changed };
}
