/**
 * Words too long for a phone's line (a 35-letter product name, "Supercalifragilisticexpialidocious")
 * are never broken: each is wrapped in a span whose font shrinks, with the screen's width, until the
 * word fits. Addresses and paths ("github.com/pantry-app/pantry") may wrap after a slash, as
 * typesetters break them, rather than inside a word. Other text is left exactly as it is. No style
 * attributes: a class per length.
 */

/** Letters and digits in a row from which a word may not fit a 390 px screen at heading sizes. */
export const LONG_WORD = 14;

/**
 * CSS for the wrapped words of these lengths. `--lw` is the word's length in characters; `--char` the
 * width of a character in em: in headings as `themeCss` sets it per design (wider in capitals), elsewhere
 * wide enough for the small spaced capitals of labels and kickers.
 * The room left for the word is the screen less the page's padding and a logo beside it.
 */
export function longWordCss(lengths: ReadonlySet<number>): string {
  if (lengths.size === 0) return "";
  const each = [...lengths].sort((a, b) => a - b).map((n) => `.lw-${n}{--lw:${n}}`);
  return `.lw{--char:.9;font-size:min(1em,calc((100vw - 6rem) / (var(--lw) * var(--char))))}
h1 .lw,h2 .lw,h3 .lw,.brand .lw,summary .lw{--char:var(--char-head,.68)}
${each.join("")}`;
}

/** An address or a path: a host name before a slash, or two slashes ("github.com/a/b", "docs/img/x.png"); not "km/h" or "and/or". */
const ADDRESS = /\S*(?:\.\S*\/|\/\S*\/)\S*/g;

/** Elements whose text is not prose: left alone (a `<title>` cannot hold markup; code may break anywhere). */
const SKIP = new Set(["title", "style", "script", "pre", "code", "kbd", "samp", "textarea", "option"]);

/**
 * Wraps every long word in the body's text in `<span class="lw lw-N">` (N its length) and answers
 * the lengths found, for `longWordCss`; lets an address wrap after a slash followed by a letter
 * or digit (`<wbr>`). Works on the escaped markup the renderer made: text between tags, never inside a tag
 * or a skipped element.
 */
export function fitLongWords(markup: string): {
  markup: string;
  lengths: Set<number>;
} {
  const word = new RegExp(`[\\p{L}\\p{N}]{${LONG_WORD},}`, "gu");
  const lengths = new Set<number>();
  const parts = markup.split(/(<[^>]*>)/);
  const open: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const tag = /^<(\/?)([a-zA-Z][\w-]*)/.exec(part);
    if (tag) {
      const name = tag[2]!.toLowerCase();
      if (!SKIP.has(name)) continue;
      if (tag[1]) {
        const at = open.lastIndexOf(name);
        if (at >= 0) open.splice(at, 1);
      } else if (!part.endsWith("/>")) open.push(name);
      continue;
    }
    if (open.length > 0 || part.startsWith("<")) continue;
    // Addresses first: the spans added next hold a slash of their own (`</span>`).
    parts[i] = part.replace(ADDRESS, (address) => address.replace(/\/(?=[\p{L}\p{N}])/gu, "/<wbr>")).replace(word, (w) => {
      const n = [...w].length;
      lengths.add(n);
      return `<span class="lw lw-${n}">${w}</span>`;
    });
  }
  return { markup: parts.join(""), lengths };
}
