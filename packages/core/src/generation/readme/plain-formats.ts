/**
 * The simple fallback for READMEs that are not Markdown: the common parts of reStructuredText and
 * AsciiDoc (titles, code blocks, lists, links, pictures) rewritten as Markdown, so one parser and
 * one set of readers serves every README. Directives and attributes it does not know are left out.
 */

const ATX = /^#{1,6}\s+\S/m;

/** AsciiDoc: `= Title` headings and no Markdown `#` heading. */
export function isAsciidoc(source: string): boolean {
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

function restInline(text: string): string {
  return text
    .replace(/`([^`<\n]+?)\s*<([^>\n]+)>`__?/g, "[$1]($2)")
    .replace(/:[a-z][\w+-]*(?::[\w+-]+)*:`([^`\n]+)`/gi, "`$1`")
    .replace(/``([^`\n]+)``/g, "`$1`")
    .replace(/(?<!`)`([^`\n]+)`__?(?![\w`])/g, "$1")
    .replace(/(?<![\w|])\|[\w-]+(?: [\w-]+)*\|_{0,2}(?![\w|])/g, "");
}

export function restructuredTextToMarkdown(source: string): string {
  const lines = source.split("\n");
  const out: string[] = [];
  const styles: string[] = [];
  const heading = (style: string, text: string) => {
    if (!styles.includes(style)) styles.push(style);
    out.push("", `${"#".repeat(Math.min(6, styles.indexOf(style) + 1))} ${restInline(text.trim())}`, "");
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
    out.push(restInline(text));
  }
  return out.join("\n");
}

function asciidocInline(text: string): string {
  return text
    .replace(/\blink:(\S+?)\[([^\]\n]*)\]/g, (_w, url: string, label: string) => `[${label || url}](${url})`)
    .replace(/\b(https?:\/\/[^\s[\]]+)\[([^\]\n]*)\]/g, (_w, url: string, label: string) => `[${label || url}](${url})`)
    .replace(/\bimage:{1,2}(\S+?)\[([^\]\n]*)\]/g, (_w, src: string, alt: string) => `![${alt.split(",")[0] ?? ""}](${src})`)
    .replace(/(?<![\w*])\*(?=\S)([^*\n]+?\S)\*(?![\w*])/g, "**$1**");
}

export function asciidocToMarkdown(source: string): string {
  const lines = source.split("\n");
  const out: string[] = [];
  let lang = "";
  for (let i = 0; i < lines.length; i++) {
    const trimmed = lines[i]!.trim();
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
