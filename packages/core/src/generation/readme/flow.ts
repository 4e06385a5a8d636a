import type { Element, ElementContent, Nodes, Root } from "hast";
import { inlineText, isElement, type ResolveLink } from "./inline-text.js";
import { isLinkRow } from "./link-rows.js";

/**
 * The README's tree read in order, as the blocks a reader sees: headings, paragraphs, lists, code,
 * tables. Containers (`<div align="center">`, `<details>`, block quotes) are opened and their
 * content read in place, so the readers of facts (sections, features, questions, install, the
 * tagline, pictures and links) are small walks over one flat list.
 */

/** A picture as written: its address unresolved, the link around it, its width when given. */
export interface RawPicture {
  src: string;
  alt: string;
  linkHref: string | null;
  width: number | null;
  /** Inside a heading (a logo in the `<h1>`). */
  inHeading: boolean;
}

export interface RawLink {
  label: string;
  href: string;
}

/** Inline content: text with links and code marks, plain text, and what it holds. */
export interface Inline {
  /** With `code` spans and `[label](https://…)` links. */
  text: string;
  /** No marks: words only. */
  plain: string;
  links: RawLink[];
  pictures: RawPicture[];
  /** Only links, pictures and separators: a nav bar, a badge row, a language switcher. */
  navigation: boolean;
  /** A leading bold phrase ("**Fast** — …"), plain, and whether a separator (":", "—", ".") follows it. */
  lead: { text: string; separated: boolean; rest: string } | null;
  centred: boolean;
  /** All its words in `<sub>`, `<small>` or emphasis: a caption or a note, not a statement. */
  small: boolean;
}

export interface ListItem extends Inline {
  depth: number;
  /** The item's further paragraphs, as text. */
  more: string[];
}

export type Block =
  | { type: "heading"; level: number; text: string; summary: boolean; centred: boolean; pictures: RawPicture[]; links: RawLink[] }
  | ({ type: "paragraph"; alert: boolean } & Inline)
  | { type: "list"; items: ListItem[]; navigation: boolean }
  | { type: "code"; lang: string; code: string }
  | { type: "table"; header: Inline[]; rows: Inline[][] };

const BLOCK_TAGS = new Set([
  "address", "article", "aside", "blockquote", "body", "center", "details", "dialog", "dd", "div", "dl", "dt", "fieldset", "figcaption",
  "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "html", "li", "main", "nav", "ol", "p", "pre",
  "section", "summary", "table", "ul", "head", "template",
]);
const SKIP_TAGS = new Set(["script", "style", "head", "template", "noscript", "hr"]);
const ALERT = /^\s*\[!(?:NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]\s*/i;
const MAX_BLOCKS = 20_000;

interface Walk {
  resolve: ResolveLink;
  centred: boolean;
  alert: boolean;
  blocks: Block[];
}

/** The blocks of a README tree, in reading order. */
export function readFlow(root: Root, resolve: ResolveLink): Block[] {
  const walk: Walk = { resolve, centred: false, alert: false, blocks: [] };
  readChildren(root.children as ElementContent[], walk);
  return walk.blocks;
}

const centredOf = (node: Element, walk: Walk) => walk.centred || node.tagName === "center" || String(node.properties.align ?? "").toLowerCase() === "center";

function readChildren(children: readonly ElementContent[], walk: Walk): void {
  let run: ElementContent[] = [];
  const flush = () => {
    if (run.some((node) => node.type === "element" || (node.type === "text" && node.value.trim()))) paragraph(run, walk);
    run = [];
  };
  for (const child of children) {
    if (walk.blocks.length >= MAX_BLOCKS) return;
    if (child.type === "element" && BLOCK_TAGS.has(child.tagName)) {
      flush();
      readBlock(child, walk);
    } else if (child.type === "text" || child.type === "element") run.push(child);
  }
  flush();
}

function readBlock(node: Element, walk: Walk): void {
  if (SKIP_TAGS.has(node.tagName)) return;
  const inner: Walk = { ...walk, centred: centredOf(node, walk) };
  const heading = /^h([1-6])$/.exec(node.tagName);
  if (heading) {
    walk.blocks.push({
      type: "heading",
      level: Number(heading[1]),
      text: inlineText(node.children),
      summary: false,
      centred: inner.centred,
      pictures: pictures(node, true),
      links: links(node),
    });
    return;
  }
  switch (node.tagName) {
    case "p":
    case "dt":
    case "dd":
    case "figcaption":
      readChildren(node.children, inner);
      return;
    case "summary":
      walk.blocks.push({ type: "heading", level: 6, text: inlineText(node.children), summary: true, centred: inner.centred, pictures: [], links: [] });
      return;
    case "ul":
    case "ol":
      readList(node, inner);
      return;
    case "pre":
      walk.blocks.push(codeBlock(node));
      return;
    case "table":
      readTable(node, inner);
      return;
    case "blockquote": {
      // A GitHub alert (> [!WARNING]) is a notice, never the product's own words.
      const alert = ALERT.test(rawText(node));
      readChildren(node.children, { ...inner, alert: walk.alert || alert });
      return;
    }
    default:
      readChildren(node.children, inner);
  }
}

/** Text content as written (white space kept), for code. */
export function rawText(node: Nodes): string {
  if (node.type === "text") return node.value;
  if (node.type === "element" || node.type === "root") return node.children.map((child) => rawText(child as Nodes)).join("");
  return "";
}

function codeBlock(node: Element): Block {
  const code = node.children.find((child): child is Element => isElement(child, "code"));
  const classes = [code?.properties.className, node.properties.className].flat().map(String);
  const lang = classes.map((name) => /^language-(.+)$/.exec(name)?.[1]).find(Boolean) ?? String(node.properties.lang ?? "");
  const text = rawText(code ?? node).replace(/^\n+|\s+$/g, "");
  // An indented address alone (plain-text READMEs set their links apart so) is a link, not code.
  const address = /^\s*(https?:\/\/\S+)$/.exec(text)?.[1];
  if (address && !lang) {
    const link = { label: address, href: address };
    return { type: "paragraph", alert: false, text: "", plain: "", links: [link], pictures: [], navigation: true, lead: null, centred: false, small: false };
  }
  return { type: "code", lang: lang.toLowerCase(), code: text };
}

function paragraph(nodes: ElementContent[], walk: Walk): void {
  const inline = readInline(nodes, walk);
  let { text, plain } = inline;
  if (walk.alert) {
    text = text.replace(ALERT, "");
    plain = plain.replace(ALERT, "");
  }
  walk.blocks.push({ type: "paragraph", alert: walk.alert, ...inline, text, plain });
}

/** Inline nodes read once: text with links, plain text, links and pictures, and whether it is only links. */
export function readInline(nodes: readonly ElementContent[], walk: Pick<Walk, "resolve" | "centred">, options: { imageLabels?: boolean } = {}): Inline {
  const holder: Element = { type: "element", tagName: "span", properties: {}, children: [...nodes] };
  const text = inlineText(nodes, { resolve: walk.resolve, keepCode: true, imageLabels: options.imageLabels });
  const plain = inlineText(nodes);
  const found = links(holder);
  const shown = pictures(holder, false);
  return {
    text,
    plain,
    links: found,
    pictures: shown,
    navigation: isLinkRow(nodes, found.length + shown.length),
    lead: leadOf(nodes, walk),
    centred: walk.centred,
    small: isSmall(nodes),
  };
}

const SMALL_TAGS = ["sub", "small", "em", "i", "sup"];

function isSmall(nodes: readonly ElementContent[]): boolean {
  const meaningful = nodes.filter((node) => !(node.type === "text" && !node.value.trim()) && !isElement(node as Nodes, "img", "br", "picture"));
  return meaningful.length > 0 && meaningful.every((node) => isElement(node as Nodes, ...SMALL_TAGS) || (isElement(node as Nodes, "a", "p", "span") && isSmall((node as Element).children)));
}

function leadOf(nodes: readonly ElementContent[], walk: Pick<Walk, "resolve">): Inline["lead"] {
  const meaningful = nodes.filter((node) => !(node.type === "text" && !node.value.trim()) && !isElement(node as Nodes, "img"));
  const first = meaningful[0];
  // "**Fast**", or a link around it ("[**Fast**](…)").
  const strong = isElement(first as Nodes, "strong", "b") ? (first as Element) : isElement(first as Nodes, "a") && (first as Element).children.filter((child) => !(child.type === "text" && !child.value.trim())).length === 1 && isElement((first as Element).children.find((child) => child.type === "element") as Nodes, "strong", "b") ? (first as Element) : null;
  if (!strong) return null;
  const text = inlineText([strong]);
  if (!text) return null;
  const rest = inlineText(nodes.slice(nodes.indexOf(strong) + 1), { resolve: walk.resolve, keepCode: true });
  // "**Fast**: …", "**Fast** — …", "**Portable** // …", "**Fast** | …".
  const separated = /[.!:：—–-]$/.test(text) || /^(?:[:：.!—–|-]|\/\/)/.test(rest) || !rest;
  return { text, separated, rest };
}

export function links(node: Element): RawLink[] {
  const out: RawLink[] = [];
  const visit = (current: Element) => {
    for (const child of current.children) {
      if (child.type !== "element") continue;
      if (child.tagName === "a" && typeof child.properties.href === "string") {
        const label = inlineText(child.children) || pictures(child, false).map((picture) => picture.alt).join(" ").trim();
        out.push({ label, href: child.properties.href });
      }
      visit(child);
    }
  };
  visit(node);
  return out;
}

export function pictures(node: Element, inHeading: boolean): RawPicture[] {
  const out: RawPicture[] = [];
  const visit = (current: Element, linkHref: string | null) => {
    for (const child of current.children) {
      if (child.type !== "element") continue;
      const href = child.tagName === "a" && typeof child.properties.href === "string" ? child.properties.href : linkHref;
      if (child.tagName === "img" && typeof child.properties.src === "string") {
        const width = Number.parseInt(String(child.properties.width ?? ""), 10);
        out.push({ src: child.properties.src, alt: String(child.properties.alt ?? ""), linkHref: href, width: Number.isFinite(width) ? width : null, inHeading });
      }
      visit(child, href);
    }
  };
  visit(node, null);
  return out;
}

function readList(node: Element, walk: Walk, depth = 0, into: ListItem[] = []): ListItem[] {
  const top = depth === 0;
  for (const li of node.children) {
    if (!isElement(li as Nodes, "li")) continue;
    const element = li as Element;
    const inline: ElementContent[] = [];
    const paragraphs: ElementContent[][] = [];
    const nested: Element[] = [];
    for (const child of element.children) {
      if (isElement(child as Nodes, "ul", "ol")) nested.push(child as Element);
      else if (isElement(child as Nodes, "pre")) walk.blocks.push(codeBlock(child as Element));
      else if (isElement(child as Nodes, "p", "div")) paragraphs.push((child as Element).children);
      else if (isElement(child as Nodes, "input")) continue;
      else inline.push(child);
    }
    const first = inline.some((child) => child.type === "element" || child.value.trim()) ? inline : (paragraphs.shift() ?? []);
    const read = readInline(first, walk);
    into.push({ ...read, depth, more: paragraphs.map((nodes) => readInline(nodes, walk).text).filter(Boolean) });
    for (const list of nested) readList(list, walk, depth + 1, into);
  }
  if (top && into.length) {
    // A table of contents: every item only links (to the README's own parts, usually).
    const navigation = into.every((item) => item.navigation || (item.links.length > 0 && item.links.every((link) => link.href.startsWith("#"))));
    walk.blocks.push({ type: "list", items: into, navigation });
  }
  return into;
}

function readTable(node: Element, walk: Walk): void {
  const rows: Element[] = [];
  const visit = (current: Element) => {
    for (const child of current.children) {
      if (!isElement(child as Nodes)) continue;
      if ((child as Element).tagName === "tr") rows.push(child as Element);
      else if (["thead", "tbody", "tfoot"].includes((child as Element).tagName)) visit(child as Element);
    }
  };
  visit(node);
  const cells = rows.slice(0, 101).map((row) =>
    row.children.filter((cell): cell is Element => isElement(cell as Nodes, "td", "th")).map((cell) => readInline(cell.children, walk, { imageLabels: true })),
  );
  const [header, ...body] = cells;
  if (!header?.length) return;
  walk.blocks.push({ type: "table", header, rows: body });
  // Pictures in a table (screenshots side by side) are pictures of the README too.
  const shown = cells.flat().flatMap((cell) => cell.pictures);
  if (shown.length && cells.flat().every((cell) => !cell.plain)) {
    walk.blocks.pop();
    walk.blocks.push({ type: "paragraph", alert: false, text: "", plain: "", links: cells.flat().flatMap((cell) => cell.links), pictures: shown, navigation: true, lead: null, centred: walk.centred, small: false });
  }
}
