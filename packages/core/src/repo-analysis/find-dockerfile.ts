import { asMap, asText, readYaml, type YamlValue } from "./formats/yaml.js";
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
  const document = readYaml(text);
  const services = asMap(asMap(document)?.services);
  if (!services) return [];
  return Object.entries(services).map(([name, value]) => {
    const service = asMap(value) ?? {};
    return {
      name,
      image: asText(service.image),
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
  const context = asText(map.context) ?? ".";
  const dockerfile = asText(map.dockerfile) ?? "Dockerfile";
  return { context, dockerfile };
}

function composeEnvironment(environment: YamlValue | undefined): ComposeService["environment"] {
  if (Array.isArray(environment)) {
    return environment
      .map(asText)
      .filter((item): item is string => item !== null)
      .map((item) => {
        const eq = item.indexOf("=");
        return eq === -1 ? { name: item.trim(), value: null } : { name: item.slice(0, eq).trim(), value: item.slice(eq + 1) };
      })
      .filter((entry) => entry.name !== "");
  }
  const map = asMap(environment);
  if (!map) return [];
  return Object.entries(map).map(([name, value]) => ({ name, value: asText(value) }));
}

/** `1g`, `512M`, `1.5gb`, `268435456` (bytes) → MB; null when unreadable. */
export function parseMemory(value: YamlValue | undefined): number | null {
  const text = asText(value);
  if (text === null) return null;
  const match = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*$/i.exec(text);
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
