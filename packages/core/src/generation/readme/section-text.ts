import type { Block } from "./flow.js";

export interface ReadmeLead {
  text: string;
  /** What comes next: a list (kept in `text`), code, a table, a picture, more prose, or the section's end. */
  next: "list" | "code" | "table" | "picture" | "text" | "end";
}

const MAX_SECTION_TEXT = 20_000;

/** A paragraph that says something: not a link row, a notice, a caption or a picture alone. */
export const isProse = (block: Block): block is Extract<Block, { type: "paragraph" }> =>
  block.type === "paragraph" && Boolean(block.text) && !block.navigation && !block.alert && !isCaption(block);

/** A caption: a paragraph in small print or emphasis only, with or right after its picture. */
function isCaption(block: Extract<Block, { type: "paragraph" }>): boolean {
  return block.small && block.plain.split(/\s+/).length <= 30;
}

/**
 * A section's text: its paragraphs with "\n\n" between them, lists as "- item" lines (indented by
 * depth). Link rows, tables of contents, notices and captions are left out.
 */
export function sectionText(blocks: Block[]): string {
  const parts: string[] = [];
  let size = 0;
  for (const block of blocks) {
    let part = "";
    if (isProse(block)) part = block.text;
    else if (block.type === "list" && !block.navigation) {
      part = block.items
        .filter((item) => item.text && !item.navigation)
        .map((item) => `${"  ".repeat(Math.min(item.depth, 3))}- ${item.text}`)
        .join("\n");
    }
    if (!part) continue;
    parts.push(part);
    size += part.length;
    if (size > MAX_SECTION_TEXT) break;
  }
  return parts.join("\n\n");
}

/** The section's paragraphs that end with a colon, each with the kind of block that follows it. */
export function leadsOf(blocks: Block[]): ReadmeLead[] {
  const out: ReadmeLead[] = [];
  blocks.forEach((block, index) => {
    if (!isProse(block) || !/[:：]$/.test(block.text)) return;
    const next = blocks.slice(index + 1).find((candidate) => !(candidate.type === "paragraph" && candidate.small && !candidate.pictures.length));
    let kind: ReadmeLead["next"] = "end";
    if (next?.type === "list" || next?.type === "code" || next?.type === "table") kind = next.type;
    else if (next?.type === "paragraph") kind = !next.plain && next.pictures.length ? "picture" : "text";
    out.push({ text: block.text, next: kind });
  });
  return out;
}
