/**
 * Shortening without cutting a phrase apart. A README's sentence either fits a slot whole, or is
 * shortened to whole sentences, or to a leading clause that reads complete on its own (balanced
 * brackets and quotes, no list left open, no dangling last word). When none fits, the answer is
 * null and the caller picks another text or leaves the slot out: nothing ends in "…".
 */

const PAIRS: [string, string][] = [["(", ")"], ["[", "]"], ["{", "}"], ["“", "”"], ["‘", "’"], ["«", "»"]];

/** True when every bracket closes in order and straight double quotes and backticks are paired. */
export function balanced(text: string): boolean {
  const stack: string[] = [];
  const opens = new Map(PAIRS.map(([open, close]) => [open, close]));
  const closes = new Set(PAIRS.map(([, close]) => close));
  for (const char of text) {
    // "’" is also an apostrophe ("it’s"): only checked when a "‘" is open.
    if (char === "’" && stack[stack.length - 1] !== "’") continue;
    if (opens.has(char)) stack.push(opens.get(char)!);
    else if (closes.has(char)) {
      if (stack.pop() !== char) return false;
    }
  }
  const count = (mark: string) => text.split(mark).length - 1;
  return stack.length === 0 && count('"') % 2 === 0 && count("`") % 2 === 0;
}

/** Words a complete title or clause never ends with. */
export const DANGLING =
  /(?:^|\s)(?:and|or|nor|but|between|with|without|for|to|of|in|on|at|by|from|into|onto|via|using|the|a|an|your|its|their|our|my|as|than|that|which|who|whose|like|such|including|e\.g\.|i\.e\.|vs\.?|&|\+)$|[,;:(\[{–—-]$/i;

/** True when a text stops as if more were coming ("… between JPEG", "… and", "…,"). */
export const endsDangling = (text: string) => DANGLING.test(text.trim());

const ABBREVIATION = /(?:^|[\s(])(?:e\.g|i\.e|etc|vs|cf|approx|incl|esp|no|dr|mr|mrs|ms|st|jr|sr|fig|ca|resp|v\d+(?:\.\d+)*)$/i;

const SENTENCE_END = /[.!?。！？]["'”’)\]]*$/;

/** A text's sentences, in order, each with its end mark. Abbreviations and version numbers do not end one. */
export function sentences(text: string): string[] {
  const s = text.replace(/\s+/g, " ").trim();
  const out: string[] = [];
  let start = 0;
  for (const match of s.matchAll(/[.!?。！？]["'”’)\]]*(?=\s+\S|$)/g)) {
    const end = match.index + match[0].length;
    if (match[0][0] === "." && ABBREVIATION.test(s.slice(Math.max(start, match.index - 12), match.index))) continue;
    const piece = s.slice(start, end).trim();
    if (piece && balanced(piece)) {
      out.push(piece);
      start = end;
    }
  }
  const rest = s.slice(start).trim();
  if (rest) out.push(rest);
  return out;
}

/**
 * Places a sentence may be cut to leave a complete leading clause: before a dash, semicolon,
 * colon, parenthesis or a ", which"-like clause, or before a preposition that starts an
 * adverbial ("… images for the web"), or before an "and," that opens an aside ("… a website and,
 * on request, an app"). Never at a plain comma: that would cut a list.
 */
const CLAUSE_CUTS =
  /\s[—–-]\s|;\s|:\s|\s\(|,\s(?=(?:which|so|but|while|because|without|making|letting|allowing|so that|with|where|whether)\s)|\s(?=(?:for|with|by|using|via|in|on|from|so that|that|which|without|across|through|when|while|because)\s)|\s(?=(?:and|or),\s)/g;

/** True when a list is left open: "between JPEG, PNG" (a comma after which no "and"/"or" came). */
function listOpen(text: string): boolean {
  const last = text.lastIndexOf(", ");
  if (last < 0) return false;
  return !/\s(?:and|or|&)\s/.test(text.slice(last));
}

/** True when a shortened text reads complete. */
export function complete(text: string): boolean {
  return Boolean(text) && balanced(text) && !endsDangling(text) && !listOpen(text);
}

/** The longest leading clause of one sentence that fits `max` and reads complete, or null. */
export function leadingClause(sentence: string, max: number, minWords = 2): string | null {
  let best: string | null = null;
  for (const match of sentence.matchAll(CLAUSE_CUTS)) {
    if (match.index > max) break;
    const head = sentence.slice(0, match.index).trim().replace(/[,;:]$/, "");
    if (head.split(/\s+/).length >= minWords && head.length <= max && complete(head)) best = head;
  }
  return best;
}

export interface WholeTextOptions {
  /** Allow cutting one sentence to a leading clause (titles); bodies keep whole sentences only. */
  clauses?: boolean;
}

/**
 * `text` when it fits `max` and is balanced; else its leading whole sentences that fit; else
 * (with `clauses`) the first sentence's leading clause; else null.
 */
export function wholeText(text: string, max: number, options: WholeTextOptions = {}): string | null {
  const s = text.trim();
  if (!s) return null;
  if (s.length <= max && balanced(s)) return s;
  // Paragraph by paragraph, then sentence by sentence: the kept part ends where the README's does.
  const parts = s.split(/\n\s*\n/);
  let kept = "";
  for (const part of parts) {
    const next = kept ? `${kept}\n\n${part.trim()}` : part.trim();
    if (next.length <= max && balanced(part)) kept = next;
    else break;
  }
  if (kept) return kept;
  const all = sentences(parts[0] ?? "");
  let joined = "";
  for (const sentence of all) {
    const next = joined ? `${joined} ${sentence}` : sentence;
    if (next.length > max) break;
    joined = next;
  }
  // Whole sentences read complete as the README wrote them ("X and, on request, Y." is no open list).
  if (joined && (SENTENCE_END.test(joined) ? balanced(joined) : complete(joined))) return joined;
  if (options.clauses && all[0]) return leadingClause(all[0], max);
  return null;
}

/** Words only: link addresses, marks and case left out. */
const normal = (text: string) => text.replace(/(?<!!)\[([^[\]\n]*)\]\((?:[^()\s]|\([^()\s]*\))*\)/g, "$1").toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();

/**
 * True when a card's text repeats its title: the same words, the title with at most two more
 * words ("Fast" / "Fast."; "Dark mode" / "Dark mode support"), or a text that starts with its
 * title ("A framework" / "A framework a platform team embeds: …") unless it is a list.
 */
export function echoes(title: string, body: string): boolean {
  const t = normal(title);
  const b = normal(body);
  if (!t || !b) return false;
  // A list under its heading ("Download" / "- Download for macOS …") names its items, it does not echo.
  if (t === b || (b.startsWith(`${t} `) && !/^\s*-\s/.test(body))) return true;
  if (b.includes(t)) return b.split(" ").length - t.split(" ").length <= 2;
  if (t.includes(b)) return true;
  return false;
}
