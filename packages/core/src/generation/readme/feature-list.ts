import { endsDangling } from "./whole-text.js";
import type { Block, Inline, ListItem } from "./flow.js";
import { descendants, headingName, type Outline, type RawSection } from "./sections.js";

export interface ReadmeFeature {
  /** A lead-in such as "**Fast** — …" or "Fast: …"; null when the bullet has none. */
  title: string | null;
  body: string;
  /** The bullet's own sub-items ("**Batteries included**:" and "sessions", "a test client"), when it has any. */
  items?: string[];
  /** One sentence that must not be split into a title and a body (its bold lead is only the start of it). */
  whole?: boolean;
}

/**
 * The README's features: the list (else the table, else the subsections) of its feature sections
 * (Features, Highlights, Why, What it does); with none, a leading feature list: the first list of
 * the intro or of an About/Overview section whose items read as features. Never from other
 * sections: sponsors, screenshots, themes and components are no product features.
 */
export function readFeatures(outline: Outline): ReadmeFeature[] {
  const { sections } = outline;
  const roots = sections.flatMap((section, index) => (section.role === "features" && sections[section.parent ?? -1]?.role !== "features" ? [index] : []));
  for (const root of roots) {
    for (const section of descendants(sections, root)) {
      const list = section.blocks.find((block): block is Extract<Block, { type: "list" }> => block.type === "list" && !block.navigation);
      const found = list ? listFeatures(list.items) : [];
      if (found.length) return found.slice(0, 12);
      const table = section.blocks.find((block): block is Extract<Block, { type: "table" }> => block.type === "table");
      const rows = table ? tableFeatures(table) : [];
      if (rows.length) return rows.slice(0, 12);
    }
  }
  for (const root of roots) {
    const found = descendants(sections, root)
      .slice(1)
      .flatMap((child) => {
        const paragraph = child.blocks.find((block): block is Extract<Block, { type: "paragraph" }> => block.type === "paragraph" && !block.navigation && !block.alert && Boolean(block.text));
        return child.heading && paragraph && !/\?$/.test(child.heading) ? [{ title: child.heading, body: paragraph.text }] : [];
      });
    if (found.length) return found.slice(0, 12);
  }
  const leading: Block[][] = [outline.intro, ...sections.filter(isAboutSection).map((section) => section.blocks)];
  for (const blocks of leading) {
    const list = blocks.find(
      (block): block is Extract<Block, { type: "list" }> =>
        block.type === "list" &&
        !block.navigation &&
        block.items.filter((item) => item.depth === 0 && !item.navigation).length >= 2 &&
        // A link or two among them ("See the full feature comparison") do not make a feature list a list of links.
        block.items.filter((item) => !item.navigation).every((item) => item.plain.split(/\s+/).length >= 2) &&
        block.items.filter((item) => item.navigation).length * 3 <= block.items.length,
    );
    if (list) return listFeatures(list.items.filter((item) => !item.navigation)).slice(0, 12);
  }
  return [];
}

const isAboutSection = (section: RawSection) => section.role === "overview" && /^(?:about|overview|introduction|intro|description|what is|summary)\b/i.test(section.heading);

function listFeatures(items: ListItem[]): ReadmeFeature[] {
  const out: ReadmeFeature[] = [];
  items.forEach((item, index) => {
    if (item.depth !== 0) return;
    const feature = splitFeature(item);
    if (!feature) return;
    const children: string[] = [];
    for (let next = index + 1; next < items.length && items[next]!.depth > 0; next++) {
      if (items[next]!.depth === 1 && items[next]!.text) children.push(items[next]!.text);
    }
    out.push(children.length ? { ...feature, items: children } : feature);
  });
  return out.filter((feature) => feature.body);
}

const EMOJI_START = /^(?:[\p{Extended_Pictographic}\p{Emoji_Modifier}\u{FE0F}\u{200D}]\s*)+/u;

/**
 * A bullet as a feature. "**Fast**: sorts …" is a title and a body; "**Reminders** by e-mail …"
 * is one sentence titled by its bold phrase; "**X supports many features found** in Y, such as …"
 * is one sentence whose bold part is only its start (four words or more, or a dangling end): it
 * stays whole.
 */
function splitFeature(item: Inline): ReadmeFeature | null {
  const text = item.text.replace(EMOJI_START, "").trim();
  if (!text) return null;
  if (item.lead) {
    const title = headingName(item.lead.text).replace(/[.!:]$/, "");
    if (title && item.lead.separated) {
      const body = item.lead.rest.replace(/^(?:[\s:：.!—–|-]|\/\/)+/, "").trim();
      return { title, body: body || title };
    }
    if (title && (title.split(/\s+/).length >= 4 || endsDangling(title))) return { title: null, body: text, whole: true };
    if (title) return { title, body: text };
  }
  const lead = /^([^:.!?[\]()]{2,50}?)\s*(?:[:：]|\s[—–-])\s+(.{3,})$/.exec(text);
  if (lead && !/^https?$/i.test(lead[1]!)) return { title: lead[1]!.replace(/`/g, "").trim(), body: lead[2]!.trim() };
  return { title: null, body: text };
}

function tableFeatures(table: Extract<Block, { type: "table" }>): ReadmeFeature[] {
  return table.rows
    .filter((row) => row.length >= 2)
    .map((row) => ({ title: headingName(row[0]!.plain), body: row[1]!.text }))
    .filter((feature) => feature.title && feature.body && !/^[✓✔✗✘❌✅xX-]$/.test(feature.body));
}
