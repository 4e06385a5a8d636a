import type { SourceTree } from "./source-tree.js";

export interface FoundDockerfile {
  /** A Dockerfile exists at the path asked for. */
  dockerfile: boolean;
  /** When it does not: the Dockerfile the repository really builds, if one was found. */
  found?: { path: string };
}

/**
 * Whether `askedPath` exists, and when it does not, which Dockerfile the repository builds. The
 * first existing candidate wins, in this order:
 *
 * 1. `build:` of compose services, from `compose.prod.yaml`/`docker-compose.prod.yml`/`…production…`
 *    first, then `compose.yaml`, `compose.yml`, `docker-compose.yaml`, `docker-compose.yml`
 *    (override and dev compose files are not read); services in file order; `context` and
 *    `dockerfile` resolved against the compose file's folder;
 * 2. common places: `Dockerfile`, `dockerfile`, `Dockerfile.prod`, `Dockerfile.production`,
 *    `docker/Dockerfile` (+ `.prod`, `.production`), `.docker/Dockerfile`, `deploy/Dockerfile`,
 *    `deployment/Dockerfile`, `build/Dockerfile`, `Containerfile`, then other root `*.Dockerfile` and
 *    `Dockerfile.*` files (production-named first, then by name);
 * 3. any other Dockerfile up to three folders deep (shallowest first, then by path), outside
 *    dependency, test and example folders;
 * 4. only then files named for development (`dev`, `development`, `local`, `test`, `ci`, `debug`,
 *    `e2e`, `.devcontainer`), in the same order.
 */
export function findDockerfile(tree: SourceTree, askedPath = "Dockerfile"): FoundDockerfile {
  const asked = normalizePath(askedPath);
  if (tree.has(asked)) return { dockerfile: true };

  const candidates = [
    ...composeDockerfiles(tree),
    ...COMMON_DOCKERFILES,
    ...otherRootDockerfiles(tree),
    ...deeperDockerfiles(tree),
  ];
  const existing = [...new Set(candidates)].filter((path) => tree.has(path));
  const path = existing.find((candidate) => !isDevelopmentPath(candidate)) ?? existing[0];
  return path === undefined ? { dockerfile: false } : { dockerfile: false, found: { path } };
}

const COMMON_DOCKERFILES = [
  "Dockerfile",
  "dockerfile",
  "Dockerfile.prod",
  "Dockerfile.production",
  "docker/Dockerfile",
  "docker/Dockerfile.prod",
  "docker/Dockerfile.production",
  ".docker/Dockerfile",
  "deploy/Dockerfile",
  "deployment/Dockerfile",
  "build/Dockerfile",
  "Containerfile",
];

/** Compose files read for builds and settings, production first; override and dev files are never read. */
export const COMPOSE_FILES = [
  "compose.prod.yaml",
  "compose.prod.yml",
  "compose.production.yaml",
  "compose.production.yml",
  "docker-compose.prod.yaml",
  "docker-compose.prod.yml",
  "docker-compose.production.yaml",
  "docker-compose.production.yml",
  "compose.yaml",
  "compose.yml",
  "docker-compose.yaml",
  "docker-compose.yml",
];

const DEVELOPMENT = /(^|[._\-/])(dev|develop|development|local|test|tests|testing|ci|debug|e2e|\.?devcontainer)([._\-/]|$)/i;
const PRODUCTION = /(^|[._\-/])(prod|production|release)([._\-/]|$)/i;
const SKIPPED_FOLDERS =
  /(^|\/)(node_modules|vendor|\.git|third_party|test|tests|__tests__|testdata|fixtures|examples?|samples?|docs?)\//i;

export function isDevelopmentPath(path: string): boolean {
  return DEVELOPMENT.test(path);
}

function isDockerfileName(name: string): boolean {
  if (/\.dockerignore$/i.test(name)) return false;
  return /^(dockerfile|containerfile)(\..+)?$/i.test(name) || /\.(dockerfile|containerfile)$/i.test(name);
}

function byProductionThenName(a: string, b: string): number {
  const rank = (path: string) => (PRODUCTION.test(path) ? 0 : 1);
  return rank(a) - rank(b) || compare(a, b);
}

function otherRootDockerfiles(tree: SourceTree): string[] {
  return tree
    .paths()
    .filter((path) => !path.includes("/") && isDockerfileName(path))
    .sort(byProductionThenName);
}

function deeperDockerfiles(tree: SourceTree): string[] {
  const depth = (path: string) => path.split("/").length - 1;
  return tree
    .paths()
    .filter((path) => depth(path) >= 1 && depth(path) <= 3 && !SKIPPED_FOLDERS.test(path))
    .filter((path) => isDockerfileName(path.slice(path.lastIndexOf("/") + 1)))
    .sort((a, b) => depth(a) - depth(b) || byProductionThenName(a, b));
}

function composeDockerfiles(tree: SourceTree): string[] {
  const paths: string[] = [];
  for (const file of COMPOSE_FILES) {
    const text = tree.read(file);
    if (text === null) continue;
    for (const service of readComposeServices(text)) {
      if (service.build) paths.push(joinPath(dirname(file), service.build.context, service.build.dockerfile));
    }
  }
  return paths;
}

// ---------------------------------------------------------------------------------------------
// Compose files

export interface ComposeService {
  name: string;
  image: string | null;
  /** Context and Dockerfile as written (relative to the compose file), defaults filled in. */
  build: { context: string; dockerfile: string } | null;
  /** `environment:` in either form, in file order; a value is null when only the name is given. */
  environment: Array<{ name: string; value: string | null }>;
  /** `deploy.resources.limits.memory` or `mem_limit`, in MB. */
  memoryLimitMb: number | null;
}

/** The services of a compose file; none when it cannot be read. */
export function readComposeServices(text: string): ComposeService[] {
  let document: YamlValue;
  try {
    document = parseYaml(text);
  } catch {
    return [];
  }
  const services = asMap(asMap(document)?.services);
  if (!services) return [];
  return Object.entries(services).map(([name, value]) => {
    const service = asMap(value) ?? {};
    return {
      name,
      image: typeof service.image === "string" ? service.image : null,
      build: composeBuild(service.build),
      environment: composeEnvironment(service.environment),
      memoryLimitMb: parseMemory(asMap(asMap(asMap(service.deploy)?.resources)?.limits)?.memory ?? service.mem_limit ?? null),
    };
  });
}

/**
 * The services that are the app: those the repository builds (`build:`); when none builds, every
 * service whose image is not a well-known database, cache, queue, proxy or mail catcher.
 */
export function composeAppServices(services: ComposeService[]): ComposeService[] {
  const built = services.filter((service) => service.build !== null);
  return built.length > 0 ? built : services.filter((service) => !isInfrastructure(service));
}

/** Images whose settings are not the app's: databases, caches, queues, proxies, mail catchers. */
const INFRASTRUCTURE_IMAGE =
  /^(postgres|postgis\/postgis|mysql|mariadb|mongo|redis|valkey\/valkey|memcached|rabbitmq|nginx|traefik|caddy|haproxy|minio\/minio|elasticsearch|opensearchproject\/opensearch|clickhouse\/clickhouse-server|mailhog\/mailhog|axllent\/mailpit|adminer|dpage\/pgadmin4|redis\/redis-stack|bitnami\/[a-z-]+|docker\.elastic\.co\/.*|nats|eclipse-mosquitto|localstack\/localstack)$/;

function isInfrastructure(service: ComposeService): boolean {
  if (service.image === null) return false;
  const repository = service.image
    .split("@")[0]!
    .replace(/:[^/:]*$/, "")
    .replace(/^(docker\.io\/)?(library\/)?/, "");
  return INFRASTRUCTURE_IMAGE.test(repository.toLowerCase());
}

function composeBuild(build: YamlValue | undefined): ComposeService["build"] {
  if (typeof build === "string") return { context: build, dockerfile: "Dockerfile" };
  const map = asMap(build);
  if (!map) return null;
  const context = typeof map.context === "string" ? map.context : ".";
  const dockerfile = typeof map.dockerfile === "string" ? map.dockerfile : "Dockerfile";
  return { context, dockerfile };
}

function composeEnvironment(environment: YamlValue | undefined): ComposeService["environment"] {
  if (Array.isArray(environment)) {
    return environment
      .filter((item): item is string => typeof item === "string")
      .map((item) => {
        const eq = item.indexOf("=");
        return eq === -1 ? { name: item.trim(), value: null } : { name: item.slice(0, eq).trim(), value: item.slice(eq + 1) };
      })
      .filter((entry) => entry.name !== "");
  }
  const map = asMap(environment);
  if (!map) return [];
  return Object.entries(map).map(([name, value]) => ({ name, value: typeof value === "string" ? value : null }));
}

/** `1g`, `512M`, `1.5gb`, `268435456` (bytes) → MB; null when unreadable. */
export function parseMemory(value: YamlValue | undefined): number | null {
  if (typeof value !== "string") return null;
  const match = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*$/i.exec(value);
  if (!match) return null;
  const amount = Number(match[1]);
  const unit = match[2]!.toLowerCase();
  const mb =
    unit === "t"
      ? amount * 1024 * 1024
      : unit === "g"
      ? amount * 1024
      : unit === "m"
      ? amount
      : unit === "k"
      ? amount / 1024
      : amount / 1024 / 1024;
  return Math.round(mb);
}

// ---------------------------------------------------------------------------------------------
// A small YAML reader: enough for compose files, without a dependency.
//
// Reads block mappings and sequences by indentation (sequences may sit at their key's indentation,
// and `- key: value` items open a mapping), plain/single-/double-quoted scalars, one-line flow
// collections (`[a, b]`, `{a: 1}`), anchors, aliases and the `<<` merge key, tags (`!reset`, ignored)
// and comments. Limits: scalars are strings (numbers and booleans too; `null`/`~`/empty are null);
// one document; no multi-line plain or quoted scalars and no multi-line flow collections; block
// scalars (`|`, `>`) are joined roughly (comment-like and blank lines inside them are dropped).

export type YamlValue = string | null | YamlValue[] | { [key: string]: YamlValue };

interface YamlLine {
  indent: number;
  text: string;
}

export function parseYaml(text: string): YamlValue {
  const lines: YamlLine[] = [];
  for (const raw of text.replace(/^\uFEFF/, "").split(/\r?\n/)) {
    if (/^(---|\.\.\.)(\s|$)/.test(raw)) {
      if (lines.length > 0) break;
      continue;
    }
    const stripped = stripComment(raw).trimEnd();
    if (stripped.trim() === "") continue;
    if (/^\t/.test(stripped)) throw new Error("[repo-analysis] [yaml] tabs are not allowed for indentation");
    lines.push({ indent: stripped.length - stripped.trimStart().length, text: stripped.trim() });
  }
  const reader = new YamlReader(lines);
  return lines.length === 0 ? null : reader.block(lines[0]!.indent);
}

function stripComment(line: string): string {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quote) {
      if (ch === quote) quote = null;
    } else if ((ch === '"' || ch === "'") && (i === 0 || /[\s:,[{-]/.test(line[i - 1]!))) {
      quote = ch;
    } else if (ch === "#" && (i === 0 || /\s/.test(line[i - 1]!))) {
      return line.slice(0, i);
    }
  }
  return line;
}

const isSequenceItem = (text: string) => text === "-" || text.startsWith("- ");

class YamlReader {
  private index = 0;
  private readonly anchors = new Map<string, YamlValue>();
  constructor(private readonly lines: YamlLine[]) {}

  private get line(): YamlLine | undefined {
    return this.lines[this.index];
  }

  block(indent: number): YamlValue {
    const line = this.line;
    if (!line || line.indent < indent) return null;
    return isSequenceItem(line.text) ? this.sequence(line.indent) : this.mapping(line.indent);
  }

  private sequence(indent: number): YamlValue[] {
    const items: YamlValue[] = [];
    while (this.line && this.line.indent === indent && isSequenceItem(this.line.text)) {
      const line = this.line;
      const rest = line.text.slice(1).trimStart();
      if (rest === "") {
        this.index++;
        items.push(this.nested(indent));
      } else if (isSequenceItem(rest) || splitKey(rest)) {
        // `- key: value` or `- - x`: the rest opens a block at its own column.
        this.lines[this.index] = { indent: indent + (line.text.length - rest.length), text: rest };
        items.push(this.block(indent + 1));
      } else {
        this.index++;
        items.push(this.value(rest, indent));
      }
    }
    return items;
  }

  private mapping(indent: number): { [key: string]: YamlValue } {
    const map: { [key: string]: YamlValue } = {};
    const merged: Array<{ [key: string]: YamlValue }> = [];
    while (this.line && this.line.indent === indent && !isSequenceItem(this.line.text)) {
      const entry = splitKey(this.line.text);
      if (!entry) throw new Error(`[repo-analysis] [yaml] expected "key: value", got: ${this.line.text}`);
      this.index++;
      const value = this.value(entry.rest, indent);
      if (entry.key === "<<") {
        for (const source of Array.isArray(value) ? value : [value]) {
          const sourceMap = asMap(source);
          if (sourceMap) merged.push(sourceMap);
        }
      } else {
        map[entry.key] = value;
      }
    }
    // Merged keys never override keys written in the mapping itself.
    return merged.length === 0 ? map : Object.assign({}, ...merged.reverse(), map);
  }

  /** The value after `key:` or `- ` on a line at `indent`; reads nested lines when it is empty. */
  private value(rest: string, indent: number): YamlValue {
    let text = rest.replace(/^!\S*\s*/, "");
    let anchor: string | null = null;
    const anchorMatch = /^&(\S+)\s*/.exec(text);
    if (anchorMatch) {
      anchor = anchorMatch[1]!;
      text = text.slice(anchorMatch[0].length).replace(/^!\S*\s*/, "");
    }
    let value: YamlValue;
    if (text === "") value = this.nested(indent);
    else if (text.startsWith("*")) value = this.anchors.get(text.slice(1).trim()) ?? null;
    else if (/^[|>][+-]?\d*$/.test(text)) value = this.blockScalar(indent, text.startsWith(">") ? " " : "\n");
    else value = scalarOrFlow(text);
    if (anchor !== null) this.anchors.set(anchor, value);
    return value;
  }

  /** A block below a key: deeper lines, or a sequence at the key's own indentation. */
  private nested(indent: number): YamlValue {
    const next = this.line;
    if (!next) return null;
    if (next.indent > indent) return this.block(next.indent);
    if (next.indent === indent && isSequenceItem(next.text)) return this.sequence(indent);
    return null;
  }

  private blockScalar(indent: number, joiner: string): string {
    const parts: string[] = [];
    while (this.line && this.line.indent > indent) {
      parts.push(this.line.text);
      this.index++;
    }
    return parts.join(joiner);
  }
}

/** `key: rest` (the key may be quoted); null when the text is not a mapping entry. */
function splitKey(text: string): { key: string; rest: string } | null {
  const quoted = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*')\s*:(?:\s+|$)/.exec(text);
  if (quoted) return { key: scalar(quoted[1]!) ?? "", rest: text.slice(quoted[0].length).trim() };
  if (/^[[{"'&*!|>]/.test(text)) return null;
  const match = /^([^#"']*?)\s*:(?:\s+|$)/.exec(text);
  if (!match || match[1] === "") return null;
  return { key: match[1]!, rest: text.slice(match[0].length).trim() };
}

function scalarOrFlow(text: string): YamlValue {
  if (text.startsWith("[") || text.startsWith("{")) {
    try {
      const reader = { text, pos: 0 };
      const value = flowValue(reader);
      if (reader.pos >= text.trimEnd().length) return value;
    } catch {
      // not a one-line flow collection: read it as a plain scalar
    }
  }
  return scalar(text);
}

function scalar(text: string): string | null {
  const trimmed = text.trim();
  if (trimmed.startsWith('"') && trimmed.endsWith('"') && trimmed.length >= 2) {
    try {
      return JSON.parse(trimmed.replace(/\\x([0-9a-fA-F]{2})/g, "\\u00$1").replace(/\t/g, "\\t")) as string;
    } catch {
      return trimmed.slice(1, -1);
    }
  }
  if (trimmed.startsWith("'") && trimmed.endsWith("'") && trimmed.length >= 2) return trimmed.slice(1, -1).replaceAll("''", "'");
  if (trimmed === "" || trimmed === "~" || trimmed === "null" || trimmed === "Null" || trimmed === "NULL") return null;
  return trimmed;
}

function flowValue(reader: { text: string; pos: number }): YamlValue {
  const skipSpace = () => {
    while (reader.pos < reader.text.length && /\s/.test(reader.text[reader.pos]!)) reader.pos++;
  };
  skipSpace();
  const open = reader.text[reader.pos];
  if (open === "[" || open === "{") {
    reader.pos++;
    const close = open === "[" ? "]" : "}";
    const items: YamlValue[] = [];
    const map: { [key: string]: YamlValue } = {};
    for (;;) {
      skipSpace();
      if (reader.text[reader.pos] === close) {
        reader.pos++;
        break;
      }
      if (reader.pos >= reader.text.length) throw new Error("[repo-analysis] [yaml] unclosed flow collection");
      const start = reader.pos;
      const item = flowValue(reader);
      skipSpace();
      if (open === "{" || reader.text[reader.pos] === ":") {
        let value: YamlValue = null;
        if (reader.text[reader.pos] === ":") {
          reader.pos++;
          value = flowValue(reader);
        }
        if (open === "{") map[typeof item === "string" ? item : String(item)] = value;
        else items.push({ [typeof item === "string" ? item : String(item)]: value });
      } else {
        items.push(item);
      }
      skipSpace();
      if (reader.text[reader.pos] === ",") reader.pos++;
      else if (reader.pos === start) throw new Error("[repo-analysis] [yaml] unexpected character in flow collection");
    }
    return open === "[" ? items : map;
  }
  const quote = reader.text[reader.pos];
  if (quote === '"' || quote === "'") {
    const pattern = quote === '"' ? /^"(?:[^"\\]|\\.)*"/ : /^'(?:[^']|'')*'/;
    const match = pattern.exec(reader.text.slice(reader.pos));
    if (match) {
      reader.pos += match[0].length;
      return scalar(match[0]);
    }
  }
  const plain = /^[^,\]}]*?(?=\s*(?::\s|:$|[,\]}]|$))/.exec(reader.text.slice(reader.pos));
  const word = plain?.[0] ?? "";
  reader.pos += word.length;
  return scalar(word);
}

export function asMap(value: YamlValue | undefined): { [key: string]: YamlValue } | null {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? value : null;
}

// ---------------------------------------------------------------------------------------------
// Paths

export function normalizePath(path: string): string {
  const parts: string[] = [];
  for (const part of path.replaceAll("\\", "/").split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return parts.join("/");
}

function dirname(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash === -1 ? "" : path.slice(0, slash);
}

function joinPath(...parts: string[]): string {
  return normalizePath(parts.filter((part) => part !== "").join("/"));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
