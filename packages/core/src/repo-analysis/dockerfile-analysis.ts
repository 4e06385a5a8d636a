import {
  effectiveCommand,
  finalStage,
  parseDockerfile,
  type DockerCommand,
  type DockerStage,
  type ImageDefaults,
  type ParsedDockerfile,
} from "./dockerfile-parser.js";
import type { DockerfileAnalysis } from "./repo-check.js";

/**
 * Facts of a Dockerfile's final stage: its TCP ports, what it runs, and whether it serves HTTP.
 *
 * `kind` is `web` when any of these holds, else `cli` (with the warning `not-a-server`):
 * - the final stage exposes a TCP port, or an `EXPOSE` names a variable with no value (`EXPOSE $PORT`);
 * - the final stage sets `ENV PORT`;
 * - its `HEALTHCHECK` probes over HTTP (`curl`, `wget`, `http://`);
 * - the command matches one of {@link SERVER_COMMANDS}.
 * What a plain `node server.js` does cannot be known without reading the program; a script or binary
 * named `server` counts as a server, other names do not.
 *
 * UDP and SCTP ports are left out of `expose` (the proxy only carries HTTP) and reported with the
 * warning `udp-ports-ignored`.
 */
export function analyzeDockerfile(text: string): DockerfileAnalysis {
  return analyzeParsedDockerfile(parseDockerfile(text, { imageDefaults: knownImageDefaults }));
}

export function analyzeParsedDockerfile(dockerfile: ParsedDockerfile): DockerfileAnalysis {
  const stage = finalStage(dockerfile);
  if (!stage) return { expose: [], command: null, kind: "cli", warnings: ["not-a-server"] };

  const expose = [...new Set(stage.expose.filter((port) => port.protocol === "tcp").map((port) => port.port))];
  const command = commandLine(stage);
  const web =
    expose.length > 0 ||
    stage.unresolvedExpose.length > 0 ||
    "PORT" in stage.env ||
    (stage.healthcheck !== null && /\b(curl|wget)\b|https?:\/\//i.test(stage.healthcheck)) ||
    (command !== null && isServerCommand(command));

  const warnings: string[] = [];
  if (!web) warnings.push("not-a-server");
  if (stage.expose.some((port) => port.protocol !== "tcp")) warnings.push("udp-ports-ignored");
  return { expose, command, kind: web ? "web" : "cli", warnings };
}

/**
 * Commands that serve HTTP, matched against the one-line command. Servers by name (Python WSGI/ASGI
 * servers, web servers, static file servers, framework start commands), package-manager `start`
 * scripts, any `serve` subcommand (`npx serve`, `php artisan serve`, `mkdocs serve`, `ollama serve`),
 * a program or path named `server`, and listening options (`--port`, `-p 8080`, `$PORT`, `0.0.0.0`,
 * `--listen`, `--bind`).
 */
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
