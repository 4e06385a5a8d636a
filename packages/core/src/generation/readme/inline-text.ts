import type { Element, ElementContent, Nodes } from "hast";

/**
 * A README's inline content (a paragraph, a list item, a table cell) as the text page content
 * carries: plain words with two marks, `code` spans and Markdown-style links `[label](https://…)`
 * that the designs turn into `<a>` (see rendering/inline-text.ts). Pictures, footnote marks and
 * emoji shortcodes say nothing and go; emphasis keeps its words.
 */

/** Makes a README address absolute (http/https), or null when it leads nowhere a page can link to (an anchor, mailto:). */
export type ResolveLink = (href: string) => string | null;

export interface InlineOptions {
  /** Keep links as `[label](href)`; without it a link is its label. */
  resolve?: ResolveLink;
  /** Keep `code` marks (bodies render them); titles are plain. */
  keepCode?: boolean;
  /** A link that is only a picture reads as the picture's text ("Download for Windows" buttons in a table). */
  imageLabels?: boolean;
}

const SHORTCODE = /(^|[\s(>]):[a-z0-9_+-]+:(?=$|[\s).,!?;:<])/gi;
const FOOTNOTE_MARK = /^\s*(?:\*+|†+|‡+|\d{1,3}|\[\d{1,3}\])\s*$/;

export const isElement = (node: Nodes | undefined, ...names: string[]): node is Element =>
  node?.type === "element" && (names.length === 0 || names.includes(node.tagName));

/** The text of a node as it reads, every mark removed (code included). */
export function textOf(node: Nodes): string {
  return inlineText(node.type === "root" || node.type === "element" ? node.children : [node as ElementContent]);
}

/** Inline nodes as text: white space collapsed, links and code kept as the options say. */
export function inlineText(nodes: readonly (ElementContent | Nodes)[], options: InlineOptions = {}): string {
  return collapse(nodes.map((node) => one(node as Nodes, options)).join(""));
}

function collapse(text: string): string {
  // A mark after a sentence's end ("… by 200% to 300%. *") points at a footnote the page does not have.
  return text.replace(SHORTCODE, "$1").replace(/\s+/g, " ").trim().replace(/([.!?])\s*[*†‡]+$/, "$1");
}

function one(node: Nodes, options: InlineOptions): string {
  if (node.type === "text") return node.value;
  if (node.type !== "element") return node.type === "root" ? node.children.map((child) => one(child, options)).join("") : "";
  const children = () => node.children.map((child) => one(child as Nodes, options)).join("");
  switch (node.tagName) {
    case "img":
    case "picture":
    case "svg":
    case "input":
    case "script":
    case "style":
    case "video":
      return "";
    case "br":
      return " ";
    case "sup": {
      const text = children();
      return FOOTNOTE_MARK.test(text) ? "" : text;
    }
    case "code": {
      const code = node.children.map((child) => one(child as Nodes, {})).join("").replace(/\s+/g, " ").trim();
      return options.keepCode && code && !code.includes("`") ? `\`${code}\`` : code;
    }
    case "a":
      return link(node, options);
    default:
      return children();
  }
}

/** A link as `[label](href)` when it leads somewhere; its label alone otherwise. */
function link(node: Element, options: InlineOptions): string {
  const own = collapse(node.children.map((child) => one(child as Nodes, { keepCode: options.keepCode })).join(""));
  const label = (own || (options.imageLabels ? collapse(altTexts(node)) : "")).replace(/[[\]]/g, "");
  const href = typeof node.properties.href === "string" ? node.properties.href : "";
  const target = label && href && options.resolve ? options.resolve(href) : null;
  if (!target) return label;
  // The page's link syntax: no spaces or unpaired parentheses in the address.
  return `[${label}](${target.replace(/\s/g, "%20").replace(/\(/g, "%28").replace(/\)/g, "%29")})`;
}

function altTexts(node: Element): string {
  return node.children.map((child) => (child.type !== "element" ? "" : child.tagName === "img" ? ` ${String(child.properties.alt ?? "")} ` : altTexts(child))).join("");
}
