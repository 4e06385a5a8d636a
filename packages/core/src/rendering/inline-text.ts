import { html, joinHtml, type SafeHtml } from "./escape.js";

/**
 * Inline text as page content carries it: plain text with two marks an author may use, `code`
 * spans in backticks and Markdown-style links, `[label](https://…)` or `[label](/path)`.
 *
 * A link becomes `<a href>` only for a web address (`rel="noopener"`, it leaves the site) or a path
 * on the site itself; any other target (`javascript:`, `mailto:`, `#anchor`, a relative file) is
 * dropped and its label kept as text, so a page never shows raw link syntax nor a link that could
 * run script. Labels and addresses are escaped like every other text. A link is drawn in its text's
 * own colour, underlined (`.text-link`): that colour meets AA on whatever box the text sits in (an
 * accent-coloured card, say), where the design's link colour may not.
 */

/** A code span, or a link: `[label](target "optional title")`, the target optionally in `<…>`, one level of parentheses allowed (Wikipedia addresses). */
const TOKEN = /`([^`\n]+)`|(?<!!)\[((?:[^[\]\n`]|`[^`\n]*`)+)\]\(\s*<?((?:[^\s()<>]|\([^\s()<>]*\))+)>?(?:\s+"[^"\n]*")?\s*\)/g;

/** Where a link may lead: `{href, external}`, or null when its target is not allowed. */
export function linkTarget(target: string): { href: string; external: boolean } | null {
  if (/^\/(?![/\\])[^\s"'<>]*$/.test(target)) return { href: target, external: false };
  try {
    const url = new URL(target);
    return url.protocol === "https:" || url.protocol === "http:" ? { href: url.href, external: true } : null;
  } catch {
    return null;
  }
}

/** Text with `code` spans only (a link's label). */
function codeSpans(text: string): SafeHtml {
  const parts = text.split(/`([^`\n]+)`/);
  return joinHtml(parts.map((part, i) => (i % 2 === 1 ? html`<code>${part}</code>` : part)));
}

/** Inline text with `code` spans and links, escaped. */
export function inline(text: string): SafeHtml {
  const out: (SafeHtml | string)[] = [];
  let last = 0;
  for (const match of text.matchAll(TOKEN)) {
    out.push(text.slice(last, match.index));
    last = match.index + match[0].length;
    const [, code, label, target] = match;
    if (code !== undefined) {
      out.push(html`<code>${code}</code>`);
      continue;
    }
    const link = linkTarget(target!);
    if (!link) out.push(codeSpans(label!));
    else out.push(html`<a class="text-link" href="${link.href}"${link.external ? html` rel="noopener"` : ""}>${codeSpans(label!)}</a>`);
  }
  out.push(text.slice(last));
  return joinHtml(out);
}

/** The same text for places that take no markup (a pull quote, a meta description): each link's label stays, its address goes. */
export function plainText(text: string): string {
  return text.replace(TOKEN, (whole, code: string | undefined, label: string | undefined) => (code !== undefined ? whole : label!));
}
