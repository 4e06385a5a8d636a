/**
 * HTML escaping for the page renderer. Page content comes from an AI or a README author, so every
 * string is untrusted until it has gone through `escapeHtml`; the `html` tag does that for every
 * interpolation, and only fragments that were themselves built with `html` (or marked with
 * `trustedHtml`) go through unchanged.
 */

const HTML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Escapes text for use between tags. Quotes are escaped too, so the result is also safe in quoted attributes. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch]!);
}

/** Escapes a value for a double- or single-quoted attribute; also escapes the backtick old browsers treated as a quote. */
export function escapeAttribute(value: string): string {
  return escapeHtml(value).replace(/`/g, "&#96;");
}

/** Markup that is already safe: built by `html` or explicitly trusted. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** Values an `html` template accepts: text is escaped, `SafeHtml` kept, lists joined, nothing-values dropped. */
export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

/** Marks markup as trusted. Only for markup the caller built or received from a trusted party (publishing's extra `<head>`). */
export function trustedHtml(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.value;
  if (value === null || value === undefined || value === false || value === true) return "";
  if (Array.isArray(value)) return value.map(render).join("");
  return escapeHtml(String(value));
}

/**
 * Tagged template for markup: `html\`<h1>${title}</h1>\`` escapes `title`; nested `html` fragments,
 * arrays of them and `trustedHtml(...)` pass through. `false`, `null` and `undefined` render nothing,
 * so `${cond && html\`…\`}` works.
 */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new SafeHtml(out);
}

/** Joins fragments (escaping plain strings) with an optional trusted separator. */
export function joinHtml(parts: readonly HtmlValue[], separator = ""): SafeHtml {
  return new SafeHtml(parts.map(render).join(separator));
}
