import { readDockerfileSyntax, type DockerfileInstruction } from "./formats/dockerfile.js";

export type { DockerfileInstruction } from "./formats/dockerfile.js";

/**
 * What a Dockerfile means, evaluated by BuildKit's rules closely enough to answer "what does the final
 * image run and expose" without building it. The syntax (directives, continuations, flags such as
 * `--platform`/`--mount`/`--from`, heredocs) is read by `formats/dockerfile.ts`; this file evaluates:
 *
 * - stages (`FROM [--platform=…] image [AS name]`), global `ARG`s before the first `FROM` (visible in
 *   `FROM` lines and to a stage only when it declares the `ARG` again), BuildKit's automatic platform
 *   `ARG`s (`BUILDPLATFORM`, `TARGETARCH`…), per-stage `ARG` and `ENV` (`k=v` pairs and the legacy
 *   `ENV k v`), `ENV` winning over an `ARG` of the same name;
 * - substitution `$VAR`, `${VAR}`, `${VAR:-word}`, `${VAR-word}`, `${VAR:+word}`, `${VAR+word}`,
 *   `${VAR:?msg}` in `FROM`, `ARG`, `ENV`, `EXPOSE`, `VOLUME`, `WORKDIR`, `COPY`, with quotes and the
 *   escape character handled like BuildKit's shell lexer; `RUN`, `CMD` and `ENTRYPOINT` are left as written;
 * - `CMD`/`ENTRYPOINT`/`SHELL` in exec form (a JSON array of strings) or shell form; `ENTRYPOINT`
 *   resets a `CMD` inherited from the base (not one set in the same stage);
 * - `FROM <earlier stage>` inherits that stage's `ENV`, `EXPOSE`, `CMD`, `ENTRYPOINT`, `SHELL`,
 *   `VOLUME`, `WORKDIR` and copies (but not its `ARG`s);
 * - `COPY`/`ADD` sources and destinations, so readers can follow a config file into the image.
 *
 * `RUN` is not run and `ONBUILD` triggers are not run.
 */

export type DockerCommand = { form: "exec"; args: string[] } | { form: "shell"; command: string };

export interface DockerPort {
  port: number;
  protocol: "tcp" | "udp" | "sctp";
  /** Last port of a range such as `8000-8010`. */
  end?: number;
}

/** What an image brings along when a stage starts `FROM` it (known base images, see analysis). */
export interface ImageDefaults {
  expose?: DockerPort[];
  cmd?: DockerCommand | null;
  entrypoint?: DockerCommand | null;
  env?: Record<string, string>;
}

export interface DockerStage {
  index: number;
  /** Name from `AS name`, lower case as Docker matches it; null without one. */
  name: string | null;
  /** What follows `FROM`, global `ARG`s substituted. */
  from: string;
  /** Index of the earlier stage this one is built `FROM`; null when it starts from an image. */
  parent: number | null;
  /** The image at the root of the `FROM` chain. */
  baseImage: string;
  instructions: DockerfileInstruction[];
  /** Environment at the end of the stage, inherited entries included. */
  env: Record<string, string>;
  /** `ARG`s declared in this stage with their default (undefined: declared without one). */
  args: Record<string, string | undefined>;
  expose: DockerPort[];
  /** `EXPOSE` words that did not resolve to a port (for example `$PORT` with no default). */
  unresolvedExpose: string[];
  cmd: DockerCommand | null;
  entrypoint: DockerCommand | null;
  /** Shell used for shell forms, `["/bin/sh", "-c"]` unless `SHELL` changed it. */
  shell: string[];
  volumes: string[];
  workdir: string;
  /** Arguments of the last `HEALTHCHECK` (inherited), null without one or after `HEALTHCHECK NONE`. */
  healthcheck: string | null;
  /** `COPY`/`ADD` of this stage and of the earlier stages it is built `FROM`, in order. */
  copies: DockerCopy[];
  /** What the image at the root of the `FROM` chain brought along (a known base image); null when unknown. */
  imageDefaults: ImageDefaults | null;
}

/** One `COPY` or `ADD`, variables substituted. */
export interface DockerCopy {
  /** `--from=` (a stage name or index, or an image); null when copied from the build context. */
  from: string | null;
  /** Sources as written (relative to the build context, or to the `--from` stage's root); `<<EOF` for a heredoc. */
  sources: string[];
  /** Absolute destination in the image (relative ones resolved against `WORKDIR`); ends in `/` for a folder. */
  destination: string;
  /** Heredoc bodies written by this instruction (`COPY <<EOF /etc/app.conf`). */
  heredocs: Array<{ name: string; body: string }>;
  line: number;
}

export interface ParsedDockerfile {
  /** The escape character from the `# escape=` directive. */
  escape: "\\" | "`";
  /** Parser directives by lower-case name (`syntax`, `escape`, `check`). */
  directives: Record<string, string>;
  /** `ARG`s before the first `FROM`, with their defaults. */
  globalArgs: Record<string, string | undefined>;
  /** Instructions before the first `FROM` (only `ARG` is meaningful there). */
  preamble: DockerfileInstruction[];
  stages: DockerStage[];
}

export interface ParseDockerfileOptions {
  /** Config a base image brings along (EXPOSE, CMD…); unknown images bring nothing. */
  imageDefaults?: (image: string) => ImageDefaults | undefined;
}

const DEFAULT_SHELL = ["/bin/sh", "-c"];
/** A variable lookup: the value, or undefined when the variable is not set. */
export type VariableLookup = (name: string) => string | undefined;

/**
 * Processes one word the way BuildKit's shell lexer does for `ENV`, `ARG`, `EXPOSE`…: quotes are
 * removed, the escape character takes the next character literally, and variables are substituted.
 */
export function expandWord(word: string, lookup: VariableLookup, escape: "\\" | "`" = "\\"): string {
  return new WordExpander(word, lookup, escape).expand(null);
}

class WordExpander {
  private pos = 0;
  constructor(private readonly text: string, private readonly lookup: VariableLookup, private readonly escape: string) {}

  /** Expands until `stop` (unquoted, not consumed) or the end. */
  expand(stop: string | null): string {
    let out = "";
    while (this.pos < this.text.length) {
      const ch = this.text[this.pos]!;
      if (stop !== null && ch === stop) return out;
      this.pos++;
      if (ch === this.escape) {
        if (this.pos < this.text.length) out += this.text[this.pos++];
      } else if (ch === "'") {
        const end = this.text.indexOf("'", this.pos);
        const close = end === -1 ? this.text.length : end;
        out += this.text.slice(this.pos, close);
        this.pos = close + 1;
      } else if (ch === '"') {
        out += this.doubleQuoted();
      } else if (ch === "$") {
        out += this.dollar();
      } else {
        out += ch;
      }
    }
    return out;
  }

  private doubleQuoted(): string {
    let out = "";
    while (this.pos < this.text.length) {
      const ch = this.text[this.pos++]!;
      if (ch === '"') return out;
      if (ch === this.escape && this.pos < this.text.length && ['"', "$", this.escape].includes(this.text[this.pos]!)) {
        out += this.text[this.pos++];
      } else if (ch === "$") {
        out += this.dollar();
      } else {
        out += ch;
      }
    }
    return out;
  }

  private dollar(): string {
    const next = this.text[this.pos];
    if (next === "{") {
      this.pos++;
      const name = this.name();
      const op = this.text[this.pos];
      if (op === "}") {
        this.pos++;
        return this.lookup(name) ?? "";
      }
      let modifier = "";
      if (op === ":") {
        modifier = ":";
        this.pos++;
      }
      const kind = this.text[this.pos] ?? "";
      this.pos++;
      const word = this.expand("}");
      this.pos++; // the closing brace
      const value = this.lookup(name);
      const empty = modifier === ":" ? !value : value === undefined;
      switch (kind) {
        case "-":
          return empty ? word : value!;
        case "+":
          return empty ? "" : word;
        case "?":
          return value ?? "";
        default:
          // Pattern operators (`#`, `%`, `/`) are not evaluated: the plain value is close enough.
          return value ?? "";
      }
    }
    if (next !== undefined && /[A-Za-z0-9_]/.test(next)) return this.lookup(this.name()) ?? "";
    return "$";
  }

  private name(): string {
    const start = this.pos;
    while (this.pos < this.text.length && /[A-Za-z0-9_]/.test(this.text[this.pos]!)) this.pos++;
    return this.text.slice(start, this.pos);
  }
}

/** Splits on unquoted whitespace, keeping quotes and escapes for `expandWord` (BuildKit's parseWords). */
export function splitWords(text: string, escape: "\\" | "`" = "\\"): string[] {
  const words: string[] = [];
  let word = "";
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === escape && i + 1 < text.length) {
      word += ch + text[++i];
    } else if (quote) {
      word += ch;
      if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      word += ch;
    } else if (/\s/.test(ch)) {
      if (word) words.push(word);
      word = "";
    } else {
      word += ch;
    }
  }
  if (word) words.push(word);
  return words;
}

/** A JSON array of strings is the exec form; anything else is the shell form (as BuildKit decides). */
export function parseCommand(args: string): DockerCommand {
  if (args.startsWith("[")) {
    try {
      const value: unknown = JSON.parse(args);
      if (Array.isArray(value) && value.every((item) => typeof item === "string")) return { form: "exec", args: value };
    } catch {
      // not JSON: shell form
    }
  }
  return { form: "shell", command: args };
}

interface StageState {
  env: Map<string, string>;
  expose: DockerPort[];
  unresolvedExpose: string[];
  cmd: DockerCommand | null;
  entrypoint: DockerCommand | null;
  shell: string[];
  volumes: string[];
  workdir: string;
  healthcheck: string | null;
  copies: DockerCopy[];
}

function emptyState(defaults?: ImageDefaults): StageState {
  return {
    env: new Map(Object.entries(defaults?.env ?? {})),
    expose: [...(defaults?.expose ?? [])],
    unresolvedExpose: [],
    cmd: defaults?.cmd ?? null,
    entrypoint: defaults?.entrypoint ?? null,
    shell: DEFAULT_SHELL,
    volumes: [],
    workdir: "/",
    healthcheck: null,
    copies: [],
  };
}

function cloneState(stage: DockerStage): StageState {
  return {
    env: new Map(Object.entries(stage.env)),
    expose: [...stage.expose],
    unresolvedExpose: [...stage.unresolvedExpose],
    cmd: stage.cmd,
    entrypoint: stage.entrypoint,
    shell: stage.shell,
    volumes: [...stage.volumes],
    workdir: stage.workdir,
    healthcheck: stage.healthcheck,
    copies: [...stage.copies],
  };
}

/** BuildKit's automatic platform `ARG`s, set in the global scope; a build on linux/amd64 is assumed. */
const PLATFORM_ARGS: Record<string, string> = {
  BUILDPLATFORM: "linux/amd64",
  BUILDOS: "linux",
  BUILDARCH: "amd64",
  TARGETPLATFORM: "linux/amd64",
  TARGETOS: "linux",
  TARGETARCH: "amd64",
};

export function parseDockerfile(text: string, options: ParseDockerfileOptions = {}): ParsedDockerfile {
  const { escape, directives, instructions } = readDockerfileSyntax(text);
  const globalArgs = new Map<string, string | undefined>();
  const preamble: DockerfileInstruction[] = [];
  const stages: DockerStage[] = [];
  const globalLookup: VariableLookup = (name) => (globalArgs.has(name) ? globalArgs.get(name) : PLATFORM_ARGS[name]);

  interface OpenStage {
    index: number;
    name: string | null;
    from: string;
    parent: DockerStage | undefined;
    instructions: DockerfileInstruction[];
    state: StageState;
    args: Map<string, string | undefined>;
    /** A `CMD` was set in this stage, so a later `ENTRYPOINT` keeps it. */
    cmdSet: boolean;
    imageDefaults: ImageDefaults | null;
  }
  let current: OpenStage | null = null;
  const finish = (open: OpenStage) => {
    const { state } = open;
    stages.push({
      index: open.index,
      name: open.name,
      from: open.from,
      parent: open.parent ? open.parent.index : null,
      baseImage: open.parent ? open.parent.baseImage : open.from,
      instructions: open.instructions,
      env: Object.fromEntries(state.env),
      args: Object.fromEntries(open.args),
      expose: state.expose,
      unresolvedExpose: state.unresolvedExpose,
      cmd: state.cmd,
      entrypoint: state.entrypoint,
      shell: state.shell,
      volumes: state.volumes,
      workdir: state.workdir,
      healthcheck: state.healthcheck,
      copies: state.copies,
      imageDefaults: open.parent ? open.parent.imageDefaults : open.imageDefaults,
    });
  };

  for (const instruction of instructions) {
    if (instruction.keyword === "FROM") {
      if (current) finish(current);
      const words = splitWords(instruction.args, escape).filter((word) => !word.startsWith("--"));
      const from = expandWord(words[0] ?? "", globalLookup, escape);
      const asIndex = words.findIndex((word) => word.toLowerCase() === "as");
      const nameWord = asIndex >= 0 ? words[asIndex + 1] : undefined;
      const parent = stages.find((stage) => stage.name !== null && stage.name === from.toLowerCase());
      const imageDefaults = parent ? null : options.imageDefaults?.(from) ?? null;
      current = {
        index: stages.length,
        name: nameWord ? expandWord(nameWord, globalLookup, escape).toLowerCase() : null,
        from,
        parent,
        instructions: [],
        state: parent ? cloneState(parent) : emptyState(imageDefaults ?? undefined),
        args: new Map(),
        cmdSet: false,
        imageDefaults,
      };
      continue;
    }

    if (!current) {
      preamble.push(instruction);
      if (instruction.keyword === "ARG") {
        for (const [name, value] of nameValuePairs(instruction.args, escape, globalLookup, false)) {
          globalArgs.set(name, value);
        }
      }
      continue;
    }

    const { state, args } = current;
    current.instructions.push(instruction);
    const lookup: VariableLookup = (name) => (state.env.has(name) ? state.env.get(name) : args.get(name));
    switch (instruction.keyword) {
      case "ARG":
        for (const [name, value] of nameValuePairs(instruction.args, escape, lookup, false)) {
          args.set(name, value ?? globalArgs.get(name) ?? PLATFORM_ARGS[name]);
        }
        break;
      case "ENV": {
        // Every value of one ENV line sees the environment from before the line.
        const pairs = nameValuePairs(instruction.args, escape, lookup, true);
        for (const [name, value] of pairs) state.env.set(name, value ?? "");
        break;
      }
      case "EXPOSE":
        for (const word of splitWords(instruction.args, escape)) {
          const expanded = expandWord(word, lookup, escape).trim();
          if (!expanded) {
            state.unresolvedExpose.push(word);
            continue;
          }
          for (const spec of expanded.split(/\s+/)) {
            const port = parsePortSpec(spec);
            if (port) {
              if (!state.expose.some((seen) => seen.port === port.port && seen.protocol === port.protocol))
                state.expose.push(port);
            } else {
              state.unresolvedExpose.push(word);
            }
          }
        }
        break;
      case "CMD":
        state.cmd = parseCommand(instruction.args);
        current.cmdSet = true;
        break;
      case "ENTRYPOINT":
        state.entrypoint = parseCommand(instruction.args);
        if (!current.cmdSet) state.cmd = null;
        break;
      case "SHELL": {
        const shell = parseCommand(instruction.args);
        if (shell.form === "exec" && shell.args.length > 0) state.shell = shell.args;
        break;
      }
      case "VOLUME": {
        const volume = parseCommand(instruction.args);
        const paths =
          volume.form === "exec"
            ? volume.args.map((path) => expandWord(path, lookup, escape))
            : splitWords(volume.command, escape).map((word) => expandWord(word, lookup, escape));
        for (const path of paths) if (path && !state.volumes.includes(path)) state.volumes.push(path);
        break;
      }
      case "WORKDIR": {
        const dir = expandWord(instruction.args, lookup, escape);
        const absolute = dir.startsWith("/") || /^[A-Za-z]:[\\/]/.test(dir);
        state.workdir = absolute ? dir : `${state.workdir.replace(/\/$/, "")}/${dir}`;
        break;
      }
      case "HEALTHCHECK":
        state.healthcheck = /^none$/i.test(instruction.args) ? null : instruction.args;
        break;
      case "COPY":
      case "ADD": {
        const copy = readCopy(instruction, state.workdir, (word) => expandWord(word, lookup, escape), escape);
        if (copy) state.copies.push(copy);
        break;
      }
    }
  }
  if (current) finish(current);

  return { escape, directives, globalArgs: Object.fromEntries(globalArgs), preamble, stages };
}

/**
 * `name=value` pairs of `ENV`/`ARG` (values expanded against the state before the line), or the
 * legacy `ENV name value with spaces`. A bare `ARG name` gives `[name, undefined]`.
 */
function nameValuePairs(
  args: string,
  escape: "\\" | "`",
  lookup: VariableLookup,
  legacyForm: boolean
): Array<[string, string | undefined]> {
  const words = splitWords(args, escape);
  if (words.length === 0) return [];
  if (legacyForm && !words[0]!.includes("=")) {
    const match = /^(\S+)\s+([\s\S]*)$/.exec(args.trim());
    return [[words[0]!, expandWord(match?.[2] ?? "", lookup, escape)]];
  }
  return words.map((word): [string, string | undefined] => {
    const eq = word.indexOf("=");
    if (eq === -1) return [word, undefined];
    return [word.slice(0, eq), expandWord(word.slice(eq + 1), lookup, escape)];
  });
}

/** `COPY [--from=…] src… dest` (shell or JSON form); null for a `COPY` with nothing to copy. */
function readCopy(
  instruction: DockerfileInstruction,
  workdir: string,
  expand: (word: string) => string,
  escape: "\\" | "`"
): DockerCopy | null {
  const json = parseCommand(instruction.args);
  const words =
    json.form === "exec" ? json.args.map(expand) : splitWords(instruction.args, escape).map(expand);
  if (words.length < 2) return null;
  const target = words.at(-1)!;
  const from = instruction.flags.find((flag) => flag.name === "from")?.value ?? null;
  const absolute = target.startsWith("/") ? target : `${workdir.replace(/\/$/, "")}/${target}`;
  const folder = absolute.endsWith("/") || words.length > 2;
  return {
    from: from === null ? null : expand(from),
    sources: words.slice(0, -1),
    destination: folder && !absolute.endsWith("/") ? `${absolute}/` : absolute,
    heredocs: instruction.heredocs,
    line: instruction.line,
  };
}

/** `3000`, `8080/tcp`, `53/udp`, `8000-8010/tcp`; null when it is not a port. */
export function parsePortSpec(spec: string): DockerPort | null {
  const match = /^(\d{1,5})(?:-(\d{1,5}))?(?:\/(tcp|udp|sctp))?$/i.exec(spec.trim());
  if (!match) return null;
  const port = Number(match[1]);
  const end = match[2] === undefined ? undefined : Number(match[2]);
  if (port < 1 || port > 65535 || (end !== undefined && (end < port || end > 65535))) return null;
  const protocol = (match[3]?.toLowerCase() ?? "tcp") as DockerPort["protocol"];
  return end === undefined || end === port ? { port, protocol } : { port, protocol, end };
}

/** The stage `docker build` builds without `--target`: the last one. */
export function finalStage(dockerfile: ParsedDockerfile): DockerStage | null {
  return dockerfile.stages.at(-1) ?? null;
}

/**
 * What the container runs, by Docker's rules: an exec `ENTRYPOINT` gets `CMD` appended (a shell-form
 * `CMD` as `[...shell, command]`), a shell-form `ENTRYPOINT` ignores `CMD`, and without an
 * `ENTRYPOINT` the `CMD` alone runs. Null when nothing would run.
 */
export function effectiveCommand(stage: Pick<DockerStage, "cmd" | "entrypoint" | "shell">): string[] | null {
  const asArgv = (command: DockerCommand | null) =>
    command === null ? [] : command.form === "exec" ? command.args : [...stage.shell, command.command];
  const entrypoint = stage.entrypoint;
  if (entrypoint?.form === "shell") return asArgv(entrypoint);
  const argv = [...asArgv(entrypoint), ...asArgv(stage.cmd)];
  return argv.length > 0 ? argv : null;
}
