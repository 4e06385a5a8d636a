import { normal } from "./context.js";
import { sentences } from "./whole-text.js";

/** A text's sentences as words: paragraphs and list items apart, each cut into its sentences. */
export function sentenceWords(text: string): string[] {
  const pieces = text.split(/\n\s*\n/).flatMap((part) => (/^\s*-\s/.test(part) ? part.split("\n") : [part]));
  return pieces.flatMap((piece) => sentences(piece.replace(/^\s*-\s+/, "").replace(/\n+/g, " "))).map(normal).filter(Boolean);
}

/**
 * True when two sentences (as words) say the same: the same words, or one of four words or more
 * said inside the other ("A fast tool …" in "tidyfiles is a fast tool …": a headline cut from the
 * README's opening is that opening).
 */
function same(a: string, b: string): boolean {
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short === long || (short.split(" ").length >= 4 && ` ${long} `.includes(` ${short} `));
}

/**
 * What a page has said so far, sentence by sentence. A page says each sentence once: a slot whose
 * text would say one again takes the README's next text, or is left out.
 */
export class Said {
  private readonly said: string[] = [];

  /** Notes every sentence of `text` as said. */
  add(text: string): void {
    this.said.push(...sentenceWords(text));
  }

  /** True when `text` says a sentence the page has said already. */
  repeats(text: string): boolean {
    return sentenceWords(text).some((words) => this.said.some((said) => same(words, said)));
  }

  /**
   * `text` without the paragraphs (and list items) that say something again, "" when none is left.
   * A list item goes alone; a paragraph goes whole, so no sentence is left without the one before it.
   */
  fresh(text: string): string {
    return text
      .split(/\n\s*\n/)
      .map((part) => (/^\s*-\s/.test(part) ? this.freshItems(part) : this.repeats(part) ? "" : part))
      .filter((part) => part.trim())
      .join("\n\n");
  }

  /** A list without the items that say something again; an item's sub-items go with it. */
  private freshItems(list: string): string {
    const depth = (line: string) => /^\s*/.exec(line)![0].length;
    let dropped: number | null = null;
    return list
      .split("\n")
      .filter((line) => {
        if (dropped !== null && depth(line) > dropped) return false;
        dropped = this.repeats(line) ? depth(line) : null;
        return dropped === null;
      })
      .join("\n");
  }
}
