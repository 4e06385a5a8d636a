import type { Block } from "./flow.js";
import { sectionText } from "./section-text.js";
import type { Outline } from "./sections.js";

export interface ReadmeQuestion {
  question: string;
  answer: string;
}

const BOTH = /^(?:Q\s*[:.]\s*)?(.{3,200}?\?)\s+(?:A\s*[:.]\s*)?(.+)$/s;

/**
 * Only the README's own questions: headings (and `<details>` summaries) that ask, questions inside
 * FAQ sections, and bold question lines elsewhere. A section that does not ask ("Installation"
 * under "FAQ") is never a question.
 */
export function readQuestions(outline: Outline): ReadmeQuestion[] {
  const found: ReadmeQuestion[] = [];
  for (const section of outline.sections) {
    const text = sectionText(section.blocks);
    if (/\?$/.test(section.heading) && text) found.push({ question: section.heading, answer: text });
    found.push(...(section.role === "faq" ? faqQuestions(section.blocks) : boldQuestions(section.blocks)));
  }
  const seen = new Set<string>();
  return found
    .map((entry) => ({ question: entry.question.replace(/^Q\s*[:.]\s*/, "").replace(/`/g, "").trim(), answer: entry.answer.trim() }))
    .filter((entry) => entry.question && entry.answer && !seen.has(entry.question.toLowerCase()) && seen.add(entry.question.toLowerCase()))
    .slice(0, 30);
}

function faqQuestions(blocks: Block[]): ReadmeQuestion[] {
  const out: ReadmeQuestion[] = [];
  let current: { question: string; answer: string[] } | null = null;
  const close = () => {
    if (current?.answer.length) out.push({ question: current.question, answer: current.answer.join("\n\n") });
    current = null;
  };
  for (const block of blocks) {
    if (block.type === "paragraph") {
      if (!block.text || block.navigation) continue;
      const both = BOTH.exec(block.text);
      if (both && (block.lead || /^Q\s*[:.]/.test(block.text))) {
        close();
        out.push({ question: both[1]!.trim(), answer: both[2]!.trim() });
      } else if (/\?$/.test(block.text) && block.text.length <= 200) {
        close();
        current = { question: block.text, answer: [] };
      } else if (current) current.answer.push(block.text.replace(/^A\s*[:.]\s*/, ""));
    } else if (block.type === "list") {
      for (const item of block.items) {
        if (item.depth > 0) continue;
        const both = BOTH.exec([item.text, ...item.more].join(" "));
        if (both) {
          close();
          out.push({ question: both[1]!.trim(), answer: both[2]!.trim() });
        } else if (current) current.answer.push(`- ${item.text}`);
      }
    }
  }
  close();
  return out;
}

/** `**How do I …?**` lines outside FAQ sections, answered by the rest of the line or the next paragraph. */
function boldQuestions(blocks: Block[]): ReadmeQuestion[] {
  const out: ReadmeQuestion[] = [];
  blocks.forEach((block, index) => {
    if (block.type !== "paragraph" || !block.lead || !/\?$/.test(block.lead.text) || block.lead.text.length > 200) return;
    const next = blocks[index + 1];
    // The next paragraph answers only when it is not the next question.
    const answer = block.lead.rest || (next?.type === "paragraph" && !(next.lead && /\?$/.test(next.lead.text)) ? next.text : "");
    if (answer) out.push({ question: block.lead.text, answer });
  });
  return out;
}
