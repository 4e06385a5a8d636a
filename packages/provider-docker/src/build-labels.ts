import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { extract, pack } from "tar-stream";

/**
 * A build's labels, on the way to the Engine. Given as the `labels` option, the classic builder
 * adds one `LABEL` step per label (Engine 20.10), and each step runs and commits a container of
 * its own (about 70 ms each on a small machine): an app's four labels cost three steps more than
 * `docker build --label` with one. Here they go as one `LABEL` instruction at the end of the
 * Dockerfile in the context: one step, whatever their number, on the image the Dockerfile's last
 * stage makes.
 */
export interface LabelledContext {
  /** The context with the Dockerfile's `LABEL` line added. */
  context: Readable;
  /** Whether the Dockerfile was found (a regular file at its path) and the line added; known once the context was read. */
  labelled(): boolean;
}

/**
 * The context with one `LABEL` line appended to `dockerfile`; null when the labels cannot be
 * written as one line (a line break in a key or value), so the caller gives them as the option.
 */
export function withLabelInstruction(
  context: Readable,
  dockerfile: string,
  labels: Record<string, string>,
  stageLabels: Record<string, string> = {},
): LabelledContext | null {
  if (Object.entries({ ...labels, ...stageLabels }).some(([key, value]) => /[\r\n]/.test(key + value))) return null;
  const target = normalize(dockerfile);
  const reader = extract();
  const packer = pack();
  let done = false;
  reader.on("entry", (header, stream, next) => {
    if (header.type !== "file" || normalize(header.name) !== target) {
      stream.pipe(packer.entry(header, (error) => next(error ?? undefined)));
      return;
    }
    const chunks: Buffer[] = [];
    stream.on("data", (chunk) => chunks.push(chunk as Buffer));
    stream.on("end", () => {
      const content = Buffer.from(appendLabels(labelEveryStage(Buffer.concat(chunks).toString("utf8"), stageLabels), labels));
      done = true;
      packer.entry({ ...header, size: content.length }, content, (error) => next(error ?? undefined));
    });
  });
  reader.on("finish", () => packer.finalize());
  pipeline(context, reader).catch((error: unknown) => packer.destroy(error as Error));
  return { context: Readable.from(packer, { objectMode: false }), labelled: () => done };
}

/**
 * `text` with a `LABEL` line of `labels` right after each `FROM` instruction, so every image the
 * classic builder commits (each step of each stage, the cache) and every container it runs for a
 * step carries them: what a build leaves behind is found by its labels. Keep `labels` the same
 * from build to build (no run id): a changed line misses the cache for every step after it.
 */
export function labelEveryStage(text: string, labels: Record<string, string>): string {
  if (Object.keys(labels).length === 0) return text;
  const escape = escapeCharacter(text);
  const line = labelLine(labels, escape);
  const continues = new RegExp(`${escapeForRegExp(escape)}[ \\t]*$`);
  const lines = text.split(/\r?\n/);
  const out: string[] = [];
  let inInstruction = false;
  let inFrom = false;
  for (const current of lines) {
    out.push(current);
    const trimmed = current.trim();
    // Comment and blank lines inside a continued instruction do not end it.
    if (inInstruction && (trimmed === "" || trimmed.startsWith("#"))) continue;
    if (!inInstruction) {
      if (trimmed === "" || trimmed.startsWith("#")) continue;
      inFrom = /^FROM\s/i.test(trimmed);
    }
    inInstruction = continues.test(current);
    if (!inInstruction && inFrom) {
      out.push(line);
      inFrom = false;
    }
  }
  return out.join("\n");
}

/**
 * `text` with `LABEL "key"="value" …` as its last line. Values are double-quoted with `$`, `"` and
 * the escape character escaped, so nothing is expanded. A last instruction left open by a line
 * continuation (which the end of the file closes) is closed first, so the line stays on its own.
 */
export function appendLabels(text: string, labels: Record<string, string>): string {
  const escape = escapeCharacter(text);
  const line = labelLine(labels, escape);
  const lines = text.split(/\r?\n/);
  for (let i = lines.length - 1; i >= 0; i--) {
    const trimmed = lines[i]!.trim();
    if (trimmed === "" || trimmed.startsWith("#")) continue;
    const open = new RegExp(`${escapeForRegExp(escape)}[ \\t]*$`).exec(lines[i]!);
    if (open) lines[i] = lines[i]!.slice(0, open.index);
    break;
  }
  while (lines.length > 0 && lines.at(-1) === "") lines.pop();
  return `${[...lines, line].join("\n")}\n`;
}

/** `LABEL "key"="value" …`, keys sorted, values double-quoted with `$`, `"` and the escape character escaped. */
function labelLine(labels: Record<string, string>, escape: string): string {
  const quote = (value: string) => `"${value.replace(new RegExp(`[${escapeForClass(escape)}"$]`, "g"), (ch) => `${escape}${ch}`)}"`;
  return `LABEL ${Object.entries(labels)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => `${quote(key)}=${quote(value)}`)
    .join(" ")}`;
}

/** The Dockerfile's escape character: `\`, or the one its `# escape=` parser directive names. */
function escapeCharacter(text: string): string {
  for (const line of text.replace(/^\uFEFF/, "").split(/\r?\n/)) {
    const directive = /^#\s*([a-zA-Z]+)\s*=\s*(\S+)\s*$/.exec(line);
    if (!directive) break; // parser directives come first, before any other line
    if (directive[1]!.toLowerCase() === "escape" && (directive[2] === "`" || directive[2] === "\\")) return directive[2];
  }
  return "\\";
}

const escapeForClass = (ch: string) => (ch === "\\" ? "\\\\" : ch);
const escapeForRegExp = (ch: string) => (ch === "\\" ? "\\\\" : ch);
const normalize = (path: string) => path.replace(/^(\.\/|\/)+/, "");
