import type { ElementContent, Nodes } from "hast";
import { isElement } from "./inline-text.js";

/**
 * Link-only rows: a nav bar ("Features | Docs | Twitter"), a row of badges, a language switcher
 * ("[English] [中文] [日本語]"), a line of a table of contents ("Key Features • How To Use • …").
 * They lead somewhere; they say nothing, so they never become a page's text.
 */

const SEPARATORS = /^[\s|•·,/:;*_–—\-()[\]{}<>+~.!?&]*$/u;
const EMOJI = /[\p{Extended_Pictographic}\p{Emoji_Modifier}\p{Regional_Indicator}\u{FE0F}\u{200D}\u{20E3}]/gu;
const SHORTCODE = /:[a-z0-9_+-]+:/gi;
const LABEL = /^\s*[\p{L}][\p{L}\p{N} ]{0,30}[:：]\s*(?:[|•·,/]\s*)*$/u;

/** The words of inline content outside its links and pictures. */
function outsideLinks(nodes: readonly ElementContent[]): string {
  return nodes
    .map((node) => {
      if (node.type === "text") return node.value;
      if (!isElement(node as Nodes) || ["a", "img", "picture", "svg", "br", "input"].includes((node as { tagName: string }).tagName)) return " ";
      return outsideLinks((node as { children: ElementContent[] }).children);
    })
    .join("");
}

/** True when inline content holding `count` links and pictures has nothing else but separators ("or" and "and" at most). */
export function isLinkRow(nodes: readonly ElementContent[], count: number): boolean {
  const rest = outsideLinks(nodes)
    .replace(EMOJI, " ")
    .replace(SHORTCODE, " ")
    // "… • Replit • Slite and many others": a row of names may end by saying it goes on.
    .replace(/\b(?:and |or )?(?:many |lots of |a few |several )?(?:more|others)\b|\betc\b\.?/gi, " ")
    .replace(/\b(?:or|and)\b/gi, " ");
  // "Documentation: https://…", "Source Code: …": a label of a few words before its links is a link row too.
  if (count > 0) return SEPARATORS.test(rest) || LABEL.test(rest);
  return isSeparatedRow(rest);
}

/** "Key Features • How To Use • Download • Credits": three or more short parts between separators, none a sentence. */
export function isSeparatedRow(text: string): boolean {
  const parts = text.split(/\s[•·|]\s|\s\/\s/).map((part) => part.trim()).filter(Boolean);
  return parts.length >= 3 && parts.filter((part) => part.split(/\s+/).length <= 4 && !/[.!?]$/.test(part)).length >= parts.length - 1;
}
