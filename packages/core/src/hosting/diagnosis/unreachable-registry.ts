import { hostInError, networkFailure, type NetworkFailure } from "./network-failure.js";
import { DEFAULT_HOSTS, isKnownRegistry, urlHost, type RegistryTool } from "./registries.js";

/** A build step that failed because a package or image registry could not be reached. */
export interface UnreachableRegistry {
  /** The tool that asked: it decides which mirror setting helps. */
  tool: RegistryTool;
  /** The host it could not reach (`registry.npmjs.org`); the tool's default when its output names none. */
  host: string;
  failure: NetworkFailure;
  /** For a base image that could not be pulled: its name as written (`node:22`), when the builder said it. */
  image: string | null;
  /** The output line that says so. */
  line: string;
}

/** What one tool's error line gives: the URL or host it asked, and the text that says why it failed. */
interface Found {
  tool: RegistryTool | null;
  target: string | null;
  why: string;
  image?: string | null;
  /** A generic fetch error: only a registry when the host is a known one or the step installs packages. */
  registryOnly?: boolean;
}

interface Matcher {
  pattern: RegExp;
  /** `window` is the matched line and the 40 after it (where cause chains are printed). */
  read(match: RegExpExecArray, window: string, lines: readonly string[]): Found | null;
}

/**
 * Each tool's own words for a download that failed, from outputs captured on an engine whose
 * builds reach no registry (test/hosting/fixtures/unreachable-registries): the line names the
 * URL (or the tool's default registry applies) and the network error.
 */
const MATCHERS: Matcher[] = [
  // Base images: BuildKit's metadata request (`Head "https://registry-1.docker.io/v2/library/node/manifests/22"`) and the classic builder's pull.
  { pattern: /(?:Head|Get) "?(https?:\/\/[^\s"]+\/v2\/[^\s"]*)"?: (.+)/, read: (m) => ({ tool: "image", target: m[1]!, why: m[2]!, image: imageOfManifestUrl(m[1]!) }) },
  { pattern: /failed to (?:resolve source metadata|load metadata) for (\S+?):? (.+)/, read: (m) => ({ tool: "image", target: null, why: m[2]!, image: shortImage(m[1]!) }) },
  // npm: `npm error request to https://registry.npmjs.org/left-pad failed, reason: self-signed certificate in certificate chain`.
  { pattern: /npm (?:ERR!|error) (?:network )?request to (\S+) failed, reason: (.+)/, read: (m) => ({ tool: "npm", target: m[1]!, why: m[2]! }) },
  // Corepack (downloading pnpm or Yarn itself): the URL first, the cause a few lines down.
  { pattern: /Error when performing the request to (\S+?);/, read: (m, window) => ({ tool: "corepack", target: m[1]!, why: window }) },
  // Yarn classic: `error An unexpected error occurred: "https://…: getaddrinfo ENOTFOUND …"`, or a bare `error Error: …` after `yarn install v1…`.
  { pattern: /^error An unexpected error occurred: "(https?:\/\/[^"]+?): (.+)"/, read: (m) => ({ tool: "yarn", target: m[1]!, why: m[2]! }) },
  { pattern: /^error Error: (.+)/, read: (m, _window, lines) => (lines.some((line) => /^yarn install v1\./.test(line)) ? { tool: "yarn", target: null, why: m[1]! } : null) },
  // Yarn berry: `➤ YN0001: │ RequestError: getaddrinfo ENOTFOUND registry.yarnpkg.com`.
  { pattern: /YN0001: .*?((?:Request|HTTP)Error: .+)/, read: (m) => ({ tool: "yarn", target: null, why: m[1]! }) },
  // Bun: `error: DNSResolveFailed downloading package manifest hono` (no host: its registry applies).
  { pattern: /^error: (\w+) downloading (?:package manifest|tarball)/, read: (m) => ({ tool: "bun", target: null, why: m[1]! }) },
  // pnpm: `ERR_PNPM_META_FETCH_FAIL  GET https://registry.npmjs.org/x: request to … failed, reason: …`.
  { pattern: /ERR_PNPM_\w+\s+(?:GET )?(https?:\/\/\S+?):? (.+)/, read: (m) => ({ tool: "pnpm", target: m[1]!, why: m[2]! }) },
  // Node's fetch as pnpm prints it (and any other Node tool): a registry only when the host is one.
  { pattern: /FetchError: request to (\S+) failed, reason: (.+)/, read: (m) => ({ tool: null, target: m[1]!, why: m[2]!, registryOnly: true }) },
  // pip: retries name the error, not the host; `Looking in indexes:` or the pool's host does.
  { pattern: /Retrying \(Retry\(.*?\)\) after connection broken by '(.+)': \S+/, read: (m, _window, lines) => ({ tool: "pip", target: pipIndex(lines), why: m[1]! }) },
  { pattern: /Could not fetch URL (\S+?): (.+)/, read: (m) => ({ tool: "pip", target: m[1]!, why: m[2]! }) },
  // urllib3's and reqwest's (uv's) words are any Python or Rust program's too: a registry only in an install step or for a registry's host.
  { pattern: /HTTPS?ConnectionPool\(host='([^']+)'.*?Max retries exceeded(.*)/, read: (m) => ({ tool: "pip", target: m[1]!, why: m[2]!, registryOnly: true }) },
  // uv: `error sending request for url (https://pypi.org/simple/flask/)`, the cause below.
  { pattern: /error sending request for url \((\S+)\)/, read: (m, window) => ({ tool: "pip", target: m[1]!, why: window, registryOnly: true }) },
  // Go: `go: github.com/gin-gonic/gin@v1.9.1: Get "https://proxy.golang.org/…": dial tcp: lookup proxy.golang.org …: no such host`.
  { pattern: /^go: .*?(?:Get|Head) "(https?:\/\/[^"]+)": (.+)/, read: (m) => ({ tool: "go", target: m[1]!, why: m[2]! }) },
  // Cargo: `failed to download from `https://index.crates.io/config.json``, then `Caused by:` lines.
  { pattern: /failed to (?:download from|fetch) `([^`]+)`/, read: (m, window) => ({ tool: "cargo", target: m[1]!, why: window }) },
  // apt and apk inside a build (a base image's own package mirror).
  { pattern: /Temporary failure resolving '([^']+)'/, read: (m) => ({ tool: "apt", target: m[1]!, why: m[0] }) },
  { pattern: /^(?:Err|W|E):.*?(https?:\/\/\S+).*?((?:Could not|Connection|Certificate verification).*)/, read: (m) => ({ tool: "apt", target: m[1]!, why: m[2]! }) },
  { pattern: /fetch (https?:\/\/\S+): (.+)/, read: (m) => ({ tool: "apk", target: m[1]!, why: m[2]!.replace(/temporary error \(try again later\)/i, "DNS lookup error") }) },
];

/** BuildKit's step prefix (`#7 `, with a timing `#7 0.512 ` from the CLI) and the classic builder's none. */
const STEP_PREFIX = /^#\d+ (?:\d+\.\d+ )?/;

/** A step that installs packages: a generic fetch error there is its registry's (a build script's own request is not). */
const INSTALLS = /\b(npm (ci|install|i)|pnpm (install|i|add|dlx)|yarn( install| add|\s*$)|bun (install|add|x)|npx|corepack|pip3? install|uv (sync|pip)|poetry install|pipenv)\b/;

/** The step's own command: which tool ran, when a generic error does not say. */
const TOOL_IN_COMMAND: [RegExp, RegistryTool][] = [
  [/\bcorepack\b/, "corepack"],
  [/\bpnpm\b/, "pnpm"],
  [/\byarn\b/, "yarn"],
  [/\bbun\b/, "bun"],
  [/\bnpm\b/, "npm"],
  [/\b(pip3?|uv|poetry|pipenv)\b/, "pip"],
  [/\bgo (mod|build|get|install)\b/, "go"],
  [/\bcargo\b/, "cargo"],
  [/\bapt(-get)?\b/, "apt"],
  [/\bapk\b/, "apk"],
];

/**
 * The registry a failed step could not reach, read from its output and the builder's message,
 * or null when the output says nothing of a download that failed for the network's sake (a 404,
 * a misspelt package and a failing test stay what they are).
 */
export function unreachableRegistry(output: readonly string[], message: string, command: string | null = null): UnreachableRegistry | null {
  const lines = [...output, ...message.split("\n")].map((line) => line.replace(STEP_PREFIX, "").trim()).filter(Boolean);
  for (let index = 0; index < lines.length; index++) {
    for (const matcher of MATCHERS) {
      const match = matcher.pattern.exec(lines[index]!);
      if (!match) continue;
      const found = matcher.read(match, lines.slice(index, index + 40).join("\n"), lines);
      const failure = found && networkFailure(found.why);
      if (!found || !failure) continue;
      const named = found.target ? (urlHost(found.target) ?? found.target.toLowerCase()) : hostInError(found.why);
      const tool = found.tool ?? toolOf(command) ?? "npm";
      const host = named ?? DEFAULT_HOSTS[tool];
      if (found.registryOnly && !isKnownRegistry(host) && !INSTALLS.test(command ?? "")) continue;
      return { tool, host, failure, image: found.image ?? null, line: lines[index]! };
    }
  }
  return null;
}

function toolOf(command: string | null): RegistryTool | null {
  if (!command) return null;
  return TOOL_IN_COMMAND.find(([pattern]) => pattern.test(command))?.[1] ?? null;
}

/** pip's `Looking in indexes: https://mirror.example/simple` (printed when the index is not PyPI). */
function pipIndex(lines: readonly string[]): string | null {
  for (const line of lines) {
    const index = /^Looking in indexes: (\S+?),?(?:\s|$)/.exec(line)?.[1];
    if (index) return index;
  }
  return null;
}

/** `https://registry-1.docker.io/v2/library/node/manifests/22` → `node:22`; null for the registry's root (`/v2/`). */
function imageOfManifestUrl(url: string): string | null {
  const match = /^https?:\/\/([^/]+)\/v2\/(.+)\/manifests\/([^/?#]+)/.exec(url);
  if (!match) return null;
  const [, host, name, reference] = match;
  const joined = `${name}${reference!.includes(":") ? "@" : ":"}${reference}`;
  return /(^|\.)docker\.io$/.test(host!) ? shortImage(joined) : `${host}/${joined}`;
}

/** `docker.io/library/node:22` → `node:22`, as people write it. */
function shortImage(reference: string): string {
  return reference.replace(/^docker\.io\//, "").replace(/^library\//, "");
}
