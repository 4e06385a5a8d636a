import { Marked, type Tokens } from "marked";
import { html, trustedHtml, type SafeHtml } from "./html.js";
import { layout } from "./layout.js";

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to `-`, repeats numbered. */
function anchors(): (text: string) => string {
  const seen = new Map<string, number>();
  return (text) => {
    const base = text
      .toLowerCase()
      .replace(/<[^>]*>/g, "")
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .trim()
      .replace(/\s/g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    return count === 0 ? base : `${base}-${count}`;
  };
}

/**
 * The API reference (docs/http-api.md) as a page of this server, so it reads offline. The
 * Markdown is this repository's own document, so its HTML is trusted; headings get the anchors
 * its own links use. The document's first heading is the page's one `h1`; its other top-level
 * headings (its parts) and everything under them move one level down. Wide tables and long code
 * lines scroll in their own box (`.table-wrap`, `pre` in the layout's stylesheet), never the page.
 */
export function apiReferencePage(markdown: string): SafeHtml {
  const anchor = anchors();
  let titled = false;
  const marked = new Marked({
    gfm: true,
    renderer: {
      heading(this: { parser: { parseInline(tokens: Tokens.Generic[]): string } }, { tokens, depth, text }: Tokens.Heading) {
        const level = depth === 1 && !titled ? 1 : Math.min(depth + 1, 6);
        titled = true;
        return `<h${level} id="${anchor(text)}">${this.parser.parseInline(tokens)}</h${level}>\n`;
      },
    },
  });
  const body = (marked.parse(markdown, { async: false }) as string)
    .replace(/<table>/g, '<div class="table-wrap"><table>')
    .replace(/<\/table>/g, "</table></div>");
  return layout({ title: "API reference", body: trustedHtml(body) });
}

/** When the reference is not beside the server (a copy without the repository's docs). */
export function apiReferenceMissingPage(): SafeHtml {
  return layout({
    title: "API reference",
    body: html`<h1>API reference</h1>
<p>This copy of the server does not carry its API reference. It is <code>docs/http-api.md</code> in Reposite's source.</p>`,
  });
}
