/**
 * The simple fallback for READMEs that are not Markdown: the common parts of reStructuredText and
 * AsciiDoc (titles, code blocks, lists, links, pictures) rewritten as Markdown, so one parser and
 * one set of readers serves every README. Directives and attributes it does not know are left out.
 */

const ATX = /^#{1,6}\s+\S/m;

/** AsciiDoc: a document that opens with its `= Title`, or has `= Title` headings and no Markdown `#` heading (a "# comment" in a listing block is no heading). */
export function isAsciidoc(source: string): boolean {
  if (/^\s*=\s+\S/.test(source)) return true;
  return /^={1,2}\s+\S/m.test(source) && !ATX.test(source);
}

/** reStructuredText: no Markdown heading, and a directive, a `::` literal block, an rST link or an overlined title. */
export function isRestructuredText(source: string): boolean {
  if (ATX.test(source)) return false;
  return /^\.\.\s+[\w|-]+(?:::|\s)/m.test(source) || /\S::\s*$/m.test(source) || /`[^`\n]+<[^>\n]+>`__?/.test(source) || /^([=\-~^*#])\1{2,}\n.+\n\1{3,}\s*$/m.test(source);
}

const ADORNMENT = /^([=\-`:'"~^_*+#<>])\1{2,}\s*$/;
const indentOf = (line: string) => /^[ \t]*/.exec(line)![0].replace(/\t/g, "    ").length;

function dedent(lines: string[]): string[] {
  const least = Math.min(...lines.filter((line) => line.trim()).map(indentOf));
  return lines.map((line) => line.slice(Number.isFinite(least) ? least : 0)).join("\n").replace(/^\n+|\s+$/g, "").split("\n");
}

const fence = (lang: string, body: string[]) => ["", "```" + lang, ...body, "```", ""];

/** An indented block starting at `start` (blank lines inside it kept): its lines and where it ends. */
function indentedBlock(lines: string[], start: number): { body: string[]; next: number } {
  let next = start;
  while (next < lines.length && (!lines[next]!.trim() || indentOf(lines[next]!) > 0)) next++;
  return { body: lines.slice(start, next), next };
}

/** What an rST README defines apart from its text: link targets (`.. _name: url`) and picture substitutions (`.. |name| image:: url`). */
interface RestDefinitions {
  targets: Map<string, string>;
  substitutions: Map<string, string>;
}

/** rST reference names match without regard to case or spacing. */
const refName = (name: string) => name.replace(/\s+/g, " ").trim().toLowerCase();

function restDefinitions(lines: string[]): RestDefinitions {
  const targets = new Map<string, string>();
  const substitutions = new Map<string, string>();
  lines.forEach((line, index) => {
    const target = /^\.\.\s+_(`[^`]+`|[^:]+):\s*(\S+)\s*$/.exec(line);
    if (target) targets.set(refName(target[1]!.replace(/^`|`$/g, "")), target[2]!);
    const picture = /^\.\.\s+\|([^|]+)\|\s+image::\s*(\S+)/.exec(line);
    if (picture) {
      const { body } = indentedBlock(lines, index + 1);
      const option = (name: string) => body.map((bodyLine) => new RegExp(`^\\s+:${name}:\\s*(.*)$`).exec(bodyLine)?.[1]?.trim()).find(Boolean);
      const image = `![${(option("alt") ?? "").replace(/[[\]]/g, "")}](${picture[2]})`;
      const link = option("target");
      substitutions.set(refName(picture[1]!), link ? `[${image}](${link})` : image);
    }
  });
  return { targets, substitutions };
}

/** rST inline markup as Markdown: links (inline, named and anonymous references), roles and literals as code, substitutions as their pictures. */
function restInline(text: string, defined: RestDefinitions): string {
  const reference = (label: string, name = label) => {
    const url = defined.targets.get(refName(name));
    return url ? `[${label}](${url})` : label;
  };
  return text
    .replace(/`([^`<\n]+?)\s*<([^>\n]+)>`__?/g, "[$1]($2)")
    .replace(/:[a-z][\w+-]*(?::[\w+-]+)*:`([^`\n]+)`/gi, "`$1`")
    .replace(/``([^`\n]+)``/g, "`$1`")
    .replace(/(?<!`)`([^`\n]+)`__?(?![\w`])/g, (_all, label: string) => reference(label))
    .replace(/(?<![\w`/.-])([A-Za-z][\w.-]*[A-Za-z0-9])__?(?=[\s.,;:!?)]|$)/g, (_all, name: string) => reference(name))
    .replace(/(?<![\w|])\|([\w-]+(?: [\w-]+)*)\|_{0,2}(?![\w|])/g, (_all, name: string) => defined.substitutions.get(refName(name)) ?? "");
}

export function restructuredTextToMarkdown(source: string): string {
  const lines = source.split("\n");
  const defined = restDefinitions(lines);
  const inline = (text: string) => restInline(text, defined);
  const out: string[] = [];
  const styles: string[] = [];
  const heading = (style: string, text: string) => {
    if (!styles.includes(style)) styles.push(style);
    out.push("", `${"#".repeat(Math.min(6, styles.indexOf(style) + 1))} ${inline(text.trim())}`, "");
  };
  let literalNext = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const trimmed = line.trim();
    const next = lines[i + 1]?.trim() ?? "";
    if (ADORNMENT.test(trimmed) && lines[i + 1]?.trim() && ADORNMENT.test(lines[i + 2]?.trim() ?? "")) {
      heading(`over${trimmed[0]}`, next);
      i += 2;
      continue;
    }
    if (trimmed && !ADORNMENT.test(trimmed) && ADORNMENT.test(next) && next.length >= Math.min(trimmed.length, 3) && indentOf(line) === 0) {
      heading(`under${next[0]}`, trimmed);
      i++;
      continue;
    }
    if (/^\+[-=+]{3,}\+$/.test(trimmed)) {
      // A grid table: left out.
      while (i + 1 < lines.length && lines[i + 1]!.trim()) i++;
      continue;
    }
    if (/^\.\.(?:\s|$)/.test(trimmed) && indentOf(line) === 0) {
      const { body, next: end } = indentedBlock(lines, i + 1);
      const code = /^\.\.\s+(?:code-block|code|sourcecode|highlight)::\s*(\S*)/.exec(trimmed);
      const image = /^\.\.\s+(?:image|figure)::\s*(\S+)/.exec(trimmed);
      if (code) out.push(...fence(code[1] ?? "", dedent(body.filter((bodyLine) => !/^\s+:[\w-]+:/.test(bodyLine)))));
      else if (image) {
        const alt = body.map((bodyLine) => /^\s+:alt:\s*(.*)$/.exec(bodyLine)?.[1]).find(Boolean) ?? "";
        out.push("", `![${alt}](${image[1]})`, "");
      }
      i = end - 1;
      continue;
    }
    if (literalNext && trimmed && indentOf(line) > 0) {
      const { body, next: end } = indentedBlock(lines, i);
      out.push(...fence("", dedent(body)));
      i = end - 1;
      literalNext = false;
      continue;
    }
    if (trimmed) literalNext = /::\s*$/.test(trimmed);
    // "Example::" introduces a literal block and reads "Example:"; a lone "::" says nothing.
    const text = line.replace(/\s*::\s*$/, (mark) => (/\S::\s*$/.test(line) && mark.trim() === "::" && !/\s::\s*$/.test(line) ? ":" : "")).replace(/^(\s*)#\.\s/, "$11. ");
    out.push(inline(text));
  }
  return out.join("\n");
}

function asciidocInline(text: string): string {
  return (
    text
      // A picture first (its address is a URL too): its alt text, and its link (`link=`) around it.
      .replace(/\bimage:{1,2}(\S+?)\[([^\]\n]*)\]/g, (_w, src: string, attributes: string) => {
        const parts = attributes.split(",").map((part) => part.trim());
        const link = parts.find((part) => /^link=/.test(part))?.slice(5).replace(/^"|"$/g, "");
        const image = `![${(parts[0] && !parts[0].includes("=") ? parts[0] : "").replace(/[[\]]/g, "")}](${src})`;
        return link ? `[${image}](${link})` : image;
      })
      .replace(/\blink:(\S+?)\[([^\]\n]*)\]/g, (_w, url: string, label: string) => `[${label || url}](${url})`)
      .replace(/(?<!\]\()\b(https?:\/\/[^\s[\]()]+)\[([^\]\n]*)\]/g, (_w, url: string, label: string) => `[${label || url}](${url})`)
      .replace(/(?<![\w*])\*(?=\S)([^*\n]+?\S)\*(?![\w*])/g, "**$1**")
      // " +" ends a line with a hard break.
      .replace(/\s\+$/, "")
  );
}

/**
 * AsciiDoc's preprocessing as GitHub does it: `:name: value` attributes defined and `{name}`
 * replaced by their values; `ifdef::`/`ifndef::` blocks kept or left out (GitHub defines
 * `env-github`); comment lines left out. A reference to an attribute the README never defines stays
 * for the converter to drop.
 */
function asciidocPreprocess(source: string): string[] {
  const attributes = new Map<string, string>([["env-github", ""]]);
  const expand = (text: string) => text.replace(/\{([\w-]+)\}/g, (all, name: string) => attributes.get(name) ?? all);
  const out: string[] = [];
  // Each open conditional: whether its lines are kept.
  const open: boolean[] = [];
  let comment = false;
  // The document header: the author and revision lines right under the title are no text.
  let header = false;
  for (const line of source.split("\n")) {
    const trimmed = line.trim();
    if (/^=\s+\S/.test(trimmed) && !out.some((kept) => kept.trim())) {
      header = true;
      out.push(line);
      continue;
    }
    if (header && trimmed && !/^[:/]|^(?:ifn?def|endif)::/.test(trimmed)) continue;
    if (!trimmed) header = false;
    if (/^\/{4,}$/.test(trimmed)) {
      comment = !comment;
      continue;
    }
    if (comment || /^\/\/(?!\/)/.test(trimmed)) continue;
    const condition = /^(ifdef|ifndef)::([\w,+-]+)\[(.*)\]$/.exec(trimmed);
    if (condition) {
      const names = condition[2]!.split(/[,+]/);
      const defined = condition[2]!.includes("+") ? names.every((name) => attributes.has(name)) : names.some((name) => attributes.has(name));
      const keep = condition[1] === "ifdef" ? defined : !defined;
      // The one-line form carries its content in the brackets.
      if (condition[3]) {
        if (keep && open.every(Boolean)) out.push(condition[3]);
      } else open.push(keep);
      continue;
    }
    if (/^endif::/.test(trimmed)) {
      open.pop();
      continue;
    }
    if (!open.every(Boolean)) continue;
    const attribute = /^:(!?)([\w-]+)(!?):\s*(.*)$/.exec(trimmed);
    if (attribute) {
      if (attribute[1] || attribute[3]) attributes.delete(attribute[2]!);
      else attributes.set(attribute[2]!, expand(attribute[4]!));
      continue;
    }
    out.push(expand(line));
  }
  return out;
}

const ADMONITION = /^\[(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]$/;

export function asciidocToMarkdown(source: string): string {
  const lines = asciidocPreprocess(source);
  const out: string[] = [];
  let lang = "";
  for (let i = 0; i < lines.length; i++) {
    const trimmed = lines[i]!.trim();
    // An admonition block ("[CAUTION]" over a "====" block) or paragraph ("NOTE: …") is a notice: GitHub's alert.
    const admonition = ADMONITION.exec(trimmed);
    if (admonition && /^={4,}$/.test(lines[i + 1]?.trim() ?? "")) {
      const delimiter = lines[i + 1]!.trim();
      let j = i + 2;
      const body: string[] = [];
      while (j < lines.length && lines[j]!.trim() !== delimiter) body.push(lines[j++]!);
      out.push("", `> [!${admonition[1]}]`, ...body.map((bodyLine) => `> ${asciidocInline(bodyLine)}`), "");
      i = j;
      continue;
    }
    const notice = /^(NOTE|TIP|IMPORTANT|WARNING|CAUTION):\s+(.*)$/.exec(trimmed);
    if (notice) {
      out.push("", `> [!${notice[1]}]`, `> ${asciidocInline(notice[2]!)}`, "");
      continue;
    }
    if (/^(?:-{4,}|\.{4,})$/.test(trimmed)) {
      const body: string[] = [];
      let j = i + 1;
      while (j < lines.length && lines[j]!.trim() !== trimmed) body.push(lines[j++]!);
      out.push(...fence(lang, body));
      lang = "";
      i = j;
      continue;
    }
    const source_ = /^\[(?:source)?,\s*([\w+#-]+)/.exec(trimmed);
    if (source_ || /^\[[^\]]*\]$/.test(trimmed) || /^:[\w-]+:/.test(trimmed) || /^(?:include|ifdef|ifndef|endif|toc)::/.test(trimmed)) {
      if (source_) lang = source_[1]!.toLowerCase();
      continue;
    }
    const heading = /^(={1,6})\s+(.+)$/.exec(trimmed);
    if (heading) {
      out.push("", `${"#".repeat(heading[1]!.length)} ${asciidocInline(heading[2]!)}`, "");
      continue;
    }
    const item = /^(\*{1,5}|\.{1,5})\s+(.*)$/.exec(trimmed);
    if (item) {
      const depth = item[1]!.length - 1;
      out.push(`${"  ".repeat(depth)}${item[1]![0] === "." ? "1." : "-"} ${asciidocInline(item[2]!)}`);
      continue;
    }
    out.push(asciidocInline(lines[i]!));
  }
  return out.join("\n");
}
