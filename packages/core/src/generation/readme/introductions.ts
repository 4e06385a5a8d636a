import type { ReadmeLead } from "../readme-reader.js";
import { sentences } from "./whole-text.js";

/**
 * A README sentence that ends with a colon introduces what follows it: "Set up Stripe once:" and a
 * numbered list, "Add this entry:" and a code block. On a page it is kept only together with what
 * it introduces: the list right after it in the same text, or the code, table or picture the page
 * shows with that text (`shown`). Otherwise the sentence is left out, so no text stops on
 * "…:" and no sentence points at something the page does not show.
 */

const endsWithColon = (text: string) => /[:：]$/.test(text.trim());
const isListPart = (part: string) => /^\s*-\s/.test(part);

/** The text without its last sentence ("" when it was the only one). */
function withoutLastSentence(text: string): string {
  return sentences(text).slice(0, -1).join(" ");
}

/** A list's lines: an item ending with a colon keeps it only when deeper items follow it. */
function keepListIntroductions(list: string): string {
  const lines = list.split("\n");
  const depth = (line: string) => /^\s*/.exec(line)![0].length;
  const out: string[] = [];
  lines.forEach((line, index) => {
    const next = lines[index + 1];
    if (!endsWithColon(line) || (next !== undefined && depth(next) > depth(line))) {
      out.push(line);
      return;
    }
    const marker = /^\s*-\s+/.exec(line)?.[0] ?? "";
    const rest = withoutLastSentence(line.slice(marker.length));
    if (rest) out.push(`${marker}${rest}`);
  });
  return out.join("\n");
}

/** What a page shows right after a text: the kinds of block an introduction at its end may lead to. */
export type Shown = ReadonlySet<ReadmeLead["next"]>;

/**
 * `text` with every introduction that lost what it introduces left out. `leads` are the README's
 * introductions with what follows each (a section's `leads`); `shown` what the page shows right
 * after the text. An introduction is kept when its list follows it in the text, or when it ends
 * the text and the page shows its code, table or picture next.
 */
export function keepIntroduced(text: string, leads: readonly ReadmeLead[] = [], shown: Shown = new Set()): string {
  const parts = text
    .split(/\n\s*\n/)
    .map((part) => part.replace(/\s+$/, ""))
    .filter((part) => part.trim());
  const out: string[] = [];
  parts.forEach((part, index) => {
    if (isListPart(part)) {
      const list = keepListIntroductions(part);
      if (list.trim()) out.push(list);
      return;
    }
    const paragraph = part.trim();
    const next = parts[index + 1];
    const lead = leads.find((candidate) => candidate.text === paragraph);
    const keep =
      !endsWithColon(paragraph) ||
      (next !== undefined ? isListPart(next) && (!lead || lead.next === "list") : lead !== undefined && shown.has(lead.next));
    if (keep) {
      out.push(paragraph);
      return;
    }
    const rest = withoutLastSentence(paragraph);
    if (rest) out.push(rest);
  });
  return out.join("\n\n");
}
