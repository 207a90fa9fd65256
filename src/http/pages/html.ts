/**
 * Markup that escapes by default (one rule, not an esc() to remember). `html` escapes every interpolated value unless it is
 * already SafeHtml (another `html` fragment, or text passed through `raw` on purpose), so a page
 * is safe without an esc() at each interpolation: client names, redirect URIs, emails and
 * anything else a stranger chose come out as text.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** Values a template takes: text (escaped), fragments (kept), lists of either, and nothing. */
export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as HTML text or a quoted attribute value. */
const escapeText = (text: string): string => text.replace(/[&<>"']/g, (c) => ENTITIES[c]);

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  // `cond && html`...`` leaves false; null and undefined mean "nothing here".
  if (value === null || value === undefined || value === false || value === true) return '';
  return escapeText(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new SafeHtml(out);
}

/** Explicit opt-out for markup we wrote ourselves (the stylesheet). Never for outside text. */
export const raw = (markup: string): SafeHtml => new SafeHtml(markup);
