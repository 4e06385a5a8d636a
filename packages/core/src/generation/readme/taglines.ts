import type { Block } from "./flow.js";
import { isSeparatedRow } from "./link-rows.js";
import { isLogo } from "./media.js";
import { beforePointer, isPromotionOrNotice } from "./promotions.js";
import { isProse } from "./section-text.js";
import type { Outline } from "./sections.js";

/**
 * The README's candidates for the product's one-liner, best first: the text under the title (a
 * centred description comes first in the README too), the title's own subtitle ("Foo — a small
 * thing"), the opening of an About/Overview section. Never a link row, a table of contents, a
 * caption, a notice or a call to action ("Try it!"). A sentence that introduces a list ("… that
 * includes:") is kept with its list when the list is short enough to say in one line, else it is
 * no candidate.
 */
export function taglineCandidates(outline: Outline, name = ""): string[] {
  const out: string[] = [];
  const fromBlocks = (blocks: Block[]) => {
    blocks.forEach((block, index) => {
      if (block.type !== "paragraph") return;
      // Words in emphasis under the title are its description; under a picture, its caption.
      const statement = block.small ? !block.navigation && !block.alert && !afterPicture(blocks[index - 1]) : isProse(block);
      if (!statement || !block.text || !readsAsStatement(block.plain) || isPromotionOrNotice(block.plain, name || outline.title || "")) return;
      const said = beforePointer(withItsList(block.text, blocks[index + 1]));
      if (said) out.push(said);
    });
  };
  fromBlocks(outline.intro);
  if (outline.title) {
    const parts = /^(.+?)\s+(?:[—–-]|:)\s+(.+)$/.exec(outline.title);
    if (parts && parts[2]!.split(/\s+/).length >= 3) out.push(parts[2]!);
  }
  for (const section of outline.sections.filter((candidate) => candidate.role === "overview").slice(0, 1)) {
    const index = section.blocks.findIndex(isProse);
    const block = section.blocks[index];
    if (block && block.type === "paragraph" && readsAsStatement(block.plain) && !isPromotionOrNotice(block.plain, name || outline.title || "")) {
      const said = beforePointer(withItsList(block.text, section.blocks[index + 1]));
      if (said) out.push(said);
    }
  }
  return [...new Set(out)].slice(0, 6);
}

/** A caption follows its picture: a screenshot or chart (a logo above a description is no picture of that kind). */
function afterPicture(previous: Block | undefined): boolean {
  return previous?.type === "paragraph" && !previous.plain && previous.pictures.some((picture) => !picture.inHeading && (picture.width ?? 999) > 256 && !isLogo(picture));
}


const CALL_TO_ACTION =
  /^(?:try (?:it|me|now|online|the demo)|get started|check (?:it )?out|click here|see (?:it|the|more)|learn more|read more|download now|star (?:us|this|it)|give (?:us|it|this) a star|join (?:us|our)|watch (?:the )?releases?|sign up)\b/i;

/** True when a paragraph states something: three words or more with letters, not a call to action, a TOC line or an address. */
function readsAsStatement(plain: string): boolean {
  const words = plain.split(/\s+/).length;
  if (words < 3 || !/\p{L}/u.test(plain)) return false;
  if (/^(?:table of contents|contents)\b/i.test(plain) || /^https?:\/\/\S+$/.test(plain) || isSeparatedRow(plain)) return false;
  if (CALL_TO_ACTION.test(plain) && words <= 12) return false;
  return !(/!$/.test(plain) && words <= 5);
}

/** A sentence ending in ":" said with its list ("… includes: a database, auth and storage"), or null when it cannot be. */
function withItsList(text: string, next: Block | undefined): string | null {
  if (!/[:：]$/.test(text)) return text;
  if (next?.type !== "list") return null;
  const items = next.items.filter((item) => item.depth === 0).map((item) => item.text.replace(/[.;,]$/, ""));
  const joined = items.length > 1 ? `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}` : (items[0] ?? "");
  if (!items.length || items.length > 6 || joined.length > 200 || items.some((item) => /[.:;]/.test(item.replace(/\([^)]*\)|\[[^\]]*\]\([^)]*\)/g, "")))) return null;
  return `${text} ${lowerFirst(joined)}.`;
}

const lowerFirst = (text: string) => (/^\p{Lu}\p{Ll}/u.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text);
