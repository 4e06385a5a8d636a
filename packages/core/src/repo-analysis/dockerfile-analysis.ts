import { copiedFiles } from "./copied-files.js";
import {
  effectiveCommand,
  finalStage,
  parseDockerfile,
  type DockerCommand,
  type DockerStage,
  type ImageDefaults,
  type ParsedDockerfile,
} from "./dockerfile-parser.js";
import { entrypointWithoutCommand } from "./entrypoint-check.js";
import type { DockerfileAnalysis } from "./repo-check.js";
import { isServerConfigPath, serverListen } from "./server-config.js";
import { codeFiles } from "./settings/code-files.js";
import { readsPort } from "./settings/code-reads.js";
import type { SourceTree } from "./source-tree.js";

/** The repository around the Dockerfile, so the files it copies in can be read. */
export interface DockerfileContext {
  tree?: SourceTree;
  /** The build context's folder in the repository; the root when left out. */
  contextDir?: string;
}

/**
 * Facts of a Dockerfile's final stage: its TCP ports, what it runs, and whether it serves HTTP.
 *
 * Ports: the final stage's `EXPOSE`s, with what a known base image brings (see {@link KNOWN_IMAGES}).
 * When the stage copies in a web server's config (nginx `listen`, Apache `Listen`, a Caddyfile
 * address; see `server-config.ts`), the ports it listens on come first and the base image's `EXPOSE`
 * is dropped: `FROM nginx` with a config that listens on 8080 serves on 8080, not 80.
 *
 * `kind` is `web` when any of these holds, else `cli` (with the warning `not-a-server`):
 * - the final stage exposes a TCP port (its own or its known base image's), or an `EXPOSE` or a copied
 *   server config names a variable with no value (`EXPOSE $PORT`, `listen ${PORT}`);
 * - the final stage sets `ENV PORT`;
 * - its `HEALTHCHECK` probes over HTTP (`curl`, `wget`, `http://`);
 * - the command matches one of {@link SERVER_COMMANDS};
 * - the repository's code reads `PORT` (`process.env.PORT`, `os.Getenv("PORT")`…) and the image
 *   runs a command: the program listens where it is told.
 * What a plain `node server.js` does cannot be known without reading the program; a script or binary
 * named `server` counts as a server, other names do not.
 *
 * Warnings: `not-a-server`; `udp-ports-ignored` (UDP and SCTP ports are left out of `expose`: the
 * proxy only carries HTTP); `entrypoint-without-cmd` when an `ENTRYPOINT` that waits for a command
 * (an init such as `tini`, or a wrapper script ending in `exec "$@"`) has no `CMD` after it, so the
 * container starts nothing (see `entrypoint-check.ts`); `no-cmd` when the container would start a bare
 * interpreter (`FROM node` and no `CMD`: the base image's `node` exits at once).
 */
export function analyzeDockerfile(text: string, context: DockerfileContext = {}): DockerfileAnalysis {
  return analyzeParsedDockerfile(parseDockerfile(text, { imageDefaults: knownImageDefaults }), context);
}

export function analyzeParsedDockerfile(dockerfile: ParsedDockerfile, context: DockerfileContext = {}): DockerfileAnalysis {
  const stage = finalStage(dockerfile);
  if (!stage) return { expose: [], command: null, kind: "cli", warnings: ["not-a-server"] };

  const tcpPorts = (ports: DockerStage["expose"]) => ports.filter((port) => port.protocol === "tcp").map((port) => port.port);
  let expose = [...new Set(tcpPorts(stage.expose))];
  const copied = context.tree ? copiedFiles(dockerfile, stage, context.tree, isServerConfigPath, context.contextDir) : [];
  const listen = serverListen(copied, stage.env);
  if (listen) {
    // The copied config decides; what the base image exposes is only its own default config's port.
    const fromImage = new Set(tcpPorts(stage.imageDefaults?.expose ?? []));
    expose = [...new Set([...listen.ports, ...expose.filter((port) => !fromImage.has(port))])];
  }
  const command = commandLine(stage);
  const readsPortSetting = () => command !== null && context.tree !== undefined && readsPort(codeFiles(context.tree));
  const web =
    expose.length > 0 ||
    stage.unresolvedExpose.length > 0 ||
    (listen !== null && listen.variables.length > 0) ||
    "PORT" in stage.env ||
    (stage.healthcheck !== null && /\b(curl|wget)\b|https?:\/\//i.test(stage.healthcheck)) ||
    (command !== null && isServerCommand(command)) ||
    readsPortSetting();

  const warnings: string[] = [];
  if (!web) warnings.push("not-a-server");
  if (stage.expose.some((port) => port.protocol !== "tcp")) warnings.push("udp-ports-ignored");
  const tree = context.tree;
  const readInImage = (path: string) =>
    tree ? copiedFiles(dockerfile, stage, tree, (inImage) => inImage === path, context.contextDir)[0]?.text ?? null : null;
  if (entrypointWithoutCommand(stage, readInImage)) warnings.push("entrypoint-without-cmd");
  if (runsBareInterpreter(stage)) warnings.push("no-cmd");
  return { expose, command, kind: web ? "web" : "cli", warnings };
}

/**
 * Whether the container would start a bare language interpreter: no `ENTRYPOINT`, and the command
 * (usually the `node`/`python3` a language base image brings when the Dockerfile sets no `CMD`) names
 * no program. Without a terminal the interpreter reads an empty input and exits, so nothing serves;
 * the real command often lives only in a compose file or a platform setting.
 */
function runsBareInterpreter(stage: DockerStage): boolean {
  const argv = stage.entrypoint === null && stage.cmd?.form === "exec" ? stage.cmd.args : null;
  return argv !== null && argv.length === 1 && BARE_INTERPRETER.test(argv[0]!);
}

const BARE_INTERPRETER = /^(?:\/usr\/(?:local\/)?bin\/)?(node|nodejs|python[0-9.]*|irb|ruby|bun|deno|php)$/;

export const SERVER_COMMANDS: readonly RegExp[] = [
  /\b(gunicorn|uvicorn|hypercorn|daphne|granian|waitress-serve|fastapi run|flask run|streamlit run)\b/,
  /\bmanage\.py\s+runserver\b|\bhttp\.server\b|\bjupyter(-lab|-notebook)?\s+(lab|notebook)\b/,
  /(^|[\s/])(nginx|httpd|httpd-foreground|apache2|apache2-foreground|apachectl|caddy|lighttpd|traefik|frankenphp|haproxy)(\s|$)/,
  /\b(http-server|live-server|static-web-server|miniserve|serve-handler|pm2-runtime|remix-serve|react-router-serve|code-server)\b/,
  /\b(next|nuxt|nuxi)\s+start\b|\b(vite|astro)\s+preview\b|\b(ng|nest)\s+start\b/,
  /\b(npm|yarn|pnpm|bun)\s+(run\s+)?start\b/,
  /\brails\s+(s|server)\b|\b(puma|unicorn|rackup)\b|\bthin\s+start\b|\bphp\s+-S\b|\bcatalina\.sh\s+run\b/,
  /(^|\s)serve(\s|$)/,
  /(^|[\s/])server(\.[a-z]+)?([\s/]|$)/,
  /(^|\s)--(port|listen|bind)\b|(^|\s)-p\s*=?\s*\d{2,5}\b|\$\{?PORT\b|\bPORT=|\b0\.0\.0\.0\b/,
];

export function isServerCommand(command: string): boolean {
  return SERVER_COMMANDS.some((pattern) => pattern.test(command));
}

/** The final stage's command as one shell-like line; exec forms are quoted where a shell would need it. */
export function commandLine(stage: Pick<DockerStage, "cmd" | "entrypoint" | "shell">): string | null {
  const { entrypoint, cmd } = stage;
  // A lone shell form reads best as written, without the `/bin/sh -c` Docker wraps it in.
  if (entrypoint?.form === "shell") return entrypoint.command || null;
  if ((!entrypoint || isEmpty(entrypoint)) && cmd?.form === "shell") return cmd.command || null;
  const argv = effectiveCommand(stage);
  return argv ? argv.map(shellQuote).join(" ") : null;
}

function isEmpty(command: DockerCommand): boolean {
  return command.form === "exec" ? command.args.length === 0 : command.command === "";
}

/** Quotes an argument with single quotes when it holds anything but safe characters. */
export function shellQuote(arg: string): string {
  if (arg === "") return "''";
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

const tcp = (...ports: number[]) => ports.map((port) => ({ port, protocol: "tcp" as const }));

/**
 * What common server base images expose and run, so `FROM nginx` + `COPY dist …` is seen as the web
 * server it is. Matched on the repository name (registry, tag and digest ignored). Entrypoint
 * wrapper scripts of these images are left out: the command shown is the server itself.
 */
const KNOWN_IMAGES: Array<{ match: (repository: string, tag: string) => boolean; defaults: ImageDefaults }> = [
  {
    match: (repository) => repository === "nginx",
    defaults: { expose: tcp(80), cmd: { form: "exec", args: ["nginx", "-g", "daemon off;"] } },
  },
  {
    match: (repository) => repository === "nginxinc/nginx-unprivileged" || repository === "bitnami/nginx",
    defaults: { expose: tcp(8080), cmd: { form: "exec", args: ["nginx", "-g", "daemon off;"] } },
  },
  {
    match: (repository) => repository === "httpd",
    defaults: { expose: tcp(80), cmd: { form: "exec", args: ["httpd-foreground"] } },
  },
  {
    match: (repository) => repository === "caddy",
    defaults: {
      expose: [...tcp(80, 443), { port: 443, protocol: "udp" }, ...tcp(2019)],
      cmd: { form: "exec", args: ["caddy", "run", "--config", "/etc/caddy/Caddyfile", "--adapter", "caddyfile"] },
    },
  },
  {
    match: (repository, tag) => repository === "php" && tag.includes("apache"),
    defaults: { expose: tcp(80), cmd: { form: "exec", args: ["apache2-foreground"] } },
  },
  {
    match: (repository) => repository === "tomcat",
    defaults: { expose: tcp(8080), cmd: { form: "exec", args: ["catalina.sh", "run"] } },
  },
  {
    match: (repository, tag) => repository === "wordpress" && !tag.includes("fpm") && !tag.startsWith("cli"),
    defaults: { expose: tcp(80), cmd: { form: "exec", args: ["apache2-foreground"] } },
  },
  {
    match: (repository) => repository === "ghost",
    defaults: { expose: tcp(2368), cmd: { form: "exec", args: ["node", "current/index.js"] } },
  },
  {
    match: (repository) => repository === "grafana/grafana" || repository === "grafana/grafana-oss",
    defaults: { expose: tcp(3000), entrypoint: { form: "exec", args: ["/run.sh"] } },
  },
  // Language images: their command is an interpreter, not a server, so a Dockerfile that adds no
  // CMD is rightly a command-line image.
  { match: (repository) => repository === "node", defaults: { cmd: { form: "exec", args: ["node"] } } },
  { match: (repository) => repository === "python", defaults: { cmd: { form: "exec", args: ["python3"] } } },
  { match: (repository) => repository === "ruby", defaults: { cmd: { form: "exec", args: ["irb"] } } },
  { match: (repository) => repository === "oven/bun", defaults: { cmd: { form: "exec", args: ["/usr/local/bin/bun"] } } },
];

export function knownImageDefaults(image: string): ImageDefaults | undefined {
  const withoutDigest = image.split("@")[0]!;
  const slash = withoutDigest.lastIndexOf("/");
  const colon = withoutDigest.lastIndexOf(":");
  const tag = colon > slash ? withoutDigest.slice(colon + 1) : "latest";
  let repository = (colon > slash ? withoutDigest.slice(0, colon) : withoutDigest).toLowerCase();
  repository = repository.replace(/^(docker\.io|index\.docker\.io|registry-1\.docker\.io)\//, "").replace(/^library\//, "");
  return KNOWN_IMAGES.find((entry) => entry.match(repository, tag))?.defaults;
}
