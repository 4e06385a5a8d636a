import { DockerfileParser, ModifiableInstruction, Run, Copy, type Heredoc } from "dockerfile-ast";

/**
 * Dockerfile syntax, read by `dockerfile-ast` (the parser of the Docker language server): parser
 * directives (`# syntax=`, `# escape=`), continuation lines (comment and empty lines inside them
 * dropped, as BuildKit does), flags (`FROM --platform=…`, `RUN --mount=…`, `COPY --from=…`) and
 * heredocs (`RUN <<EOF`, `COPY <<EOF /path`). What the instructions mean is evaluated in
 * `dockerfile-parser.ts`.
 */

export interface DockerfileInstruction {
  /** Upper case, e.g. `RUN`. */
  keyword: string;
  /** Everything after the keyword and its flags, continuation lines joined, trimmed; heredoc bodies left out. */
  args: string;
  /** 1-based line the instruction starts on. */
  line: number;
  /** `--name=value` flags in order (`--link` alone has the value null). */
  flags: Array<{ name: string; value: string | null }>;
  /** Heredoc bodies (`RUN <<EOF`, `COPY <<EOF /etc/app.conf`), by delimiter name, in order. */
  heredocs: Array<{ name: string; body: string }>;
}

export interface DockerfileSyntax {
  escape: "\\" | "`";
  /** Parser directives by lower-case name (`syntax`, `escape`, `check`). */
  directives: Record<string, string>;
  instructions: DockerfileInstruction[];
}

export function readDockerfileSyntax(text: string): DockerfileSyntax {
  const content = text.replace(/^\uFEFF/, "");
  const dockerfile = DockerfileParser.parse(content);
  const lines = content.split(/\r?\n/);
  const directives: Record<string, string> = {};
  for (const directive of dockerfile.getDirectives()) {
    const value = directive.getValue();
    if (value !== null) directives[directive.getName().toLowerCase()] = value;
  }
  const escape = dockerfile.getEscapeCharacter() === "`" ? "`" : "\\";

  const instructions = dockerfile.getInstructions().map((instruction): DockerfileInstruction => {
    const heredocs = instruction instanceof Run || instruction instanceof Copy ? instruction.getHeredocs() : [];
    const flags =
      instruction instanceof ModifiableInstruction
        ? instruction.getFlags().map((flag) => ({ name: flag.getName(), value: flag.getValue() }))
        : [];
    let args = (instruction.getArgumentsContent() ?? "").trim();
    // With heredocs the arguments run on into the bodies: keep the instruction's own line.
    if (heredocs.length > 0) args = args.split("\n")[0]!.trim();
    return {
      keyword: instruction.getKeyword().toUpperCase(),
      args: stripFlags(args, flags.length),
      line: instruction.getRange().start.line + 1,
      flags,
      heredocs: heredocs.map((heredoc) => ({ name: heredoc.getName(), body: heredocBody(heredoc, lines) })),
    };
  });
  return { escape, directives, instructions };
}

/** `getArgumentsContent` leaves flags out for most instructions; drop any it kept. */
function stripFlags(args: string, count: number): string {
  let rest = args;
  for (let i = 0; i < count && /^--[A-Za-z]/.test(rest); i++) rest = rest.replace(/^--\S*\s*/, "");
  return rest;
}

function heredocBody(heredoc: Heredoc, lines: string[]): string {
  const range = heredoc.getContentRange();
  if (!range) return "";
  const body: string[] = [];
  for (let line = range.start.line; line <= range.end.line; line++) {
    const text = lines[line] ?? "";
    const from = line === range.start.line ? range.start.character : 0;
    const to = line === range.end.line ? range.end.character : text.length;
    body.push(text.slice(from, to));
  }
  return body.join("\n");
}
