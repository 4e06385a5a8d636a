import type { Root as HastRoot } from "hast";
import { raw } from "hast-util-raw";
import type { Root as MdastRoot, RootContent } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { toHast } from "mdast-util-to-hast";
import { gfm } from "micromark-extension-gfm";
import { asciidocToMarkdown, isAsciidoc, isRestructuredText, restructuredTextToMarkdown } from "./plain-formats.js";
import { deepFreeze, Recent } from "./recent.js";

/** Trees of the last few READMEs: the facts of one README are read with different fallbacks (pages, logo, checks). */
const recentTrees = new Recent<HastRoot>(2);

/**
 * A README as one HTML syntax tree, the way GitHub shows it: Markdown (with GitHub's tables, task
 * lists, autolinks and strikethrough) parsed by micromark, and the README's own HTML (centred
 * headers, `<details>`, tables of download links) parsed into the same tree by parse5, so a
 * `<div align="center">` that wraps Markdown, or a link whose text wraps a line, reads as a reader
 * sees it. reStructuredText and AsciiDoc are first turned into Markdown (a simple reading of their
 * common parts). Footnotes are left out: their marks are no text of a page.
 */
export function parseReadme(source: string): HastRoot {
  return recentTrees.get(source, () => deepFreeze(parseSource(source)));
}

function parseSource(source: string): HastRoot {
  const markdown = isAsciidoc(source) ? asciidocToMarkdown(source) : isRestructuredText(source) ? restructuredTextToMarkdown(source) : source;
  return markdownTree(markdown);
}

/** Markdown (with inline HTML) as an HTML tree; never throws. */
export function markdownTree(markdown: string): HastRoot {
  let mdast: MdastRoot;
  try {
    mdast = fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
  } catch {
    mdast = { type: "root", children: [{ type: "paragraph", children: [{ type: "text", value: markdown }] }] };
  }
  dropFootnotes(mdast);
  const hast = toHast(mdast, { allowDangerousHtml: true }) as HastRoot;
  try {
    return raw(hast) as HastRoot;
  } catch {
    // HTML parse5 cannot place (rare): the Markdown alone, its HTML left out.
    return toHast(mdast) as HastRoot;
  }
}

function dropFootnotes(node: { children?: RootContent[] }): void {
  if (!node.children) return;
  node.children = node.children.filter((child) => child.type !== "footnoteReference" && child.type !== "footnoteDefinition");
  for (const child of node.children) dropFootnotes(child as { children?: RootContent[] });
}
