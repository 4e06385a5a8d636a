/** The tools whose downloads a build's diagnosis recognizes; each has its own mirror setting. */
export type RegistryTool = "npm" | "pnpm" | "yarn" | "bun" | "corepack" | "pip" | "go" | "cargo" | "apt" | "apk" | "image";

/** Well-known hosts, as a person names them. */
const KNOWN_HOSTS: [RegExp, string][] = [
  [/^registry\.(npmjs\.org|yarnpkg\.com)$/, "the npm registry"],
  [/^repo\.yarnpkg\.com$/, "Yarn's release site"],
  [/^(pypi\.org|files\.pythonhosted\.org|pypi\.python\.org)$/, "PyPI, the Python package index"],
  [/^proxy\.golang\.org$/, "the Go module proxy"],
  [/^sum\.golang\.org$/, "the Go checksum database"],
  [/^(index\.|static\.)?crates\.io$/, "crates.io"],
  [/(^|\.)docker\.(io|com)$/, "Docker Hub"],
  [/^ghcr\.io$/, "GitHub's container registry"],
  [/^(quay\.io|gcr\.io|[a-z0-9-]+\.gcr\.io|mcr\.microsoft\.com|public\.ecr\.aws|[a-z0-9-]+\.pkg\.dev)$/, "an image registry"],
  [/^(deb|security)\.debian\.org$/, "Debian's package mirror"],
  [/(^|\.)(archive|security)\.ubuntu\.com$/, "Ubuntu's package mirror"],
  [/^dl-cdn\.alpinelinux\.org$/, "Alpine's package mirror"],
  [/^github\.com$|^codeload\.github\.com$|^objects\.githubusercontent\.com$/, "GitHub"],
];

/** Where each tool downloads from unless told otherwise. */
export const DEFAULT_HOSTS: Record<RegistryTool, string> = {
  npm: "registry.npmjs.org",
  pnpm: "registry.npmjs.org",
  yarn: "registry.yarnpkg.com",
  bun: "registry.npmjs.org",
  corepack: "registry.npmjs.org",
  pip: "pypi.org",
  go: "proxy.golang.org",
  cargo: "index.crates.io",
  apt: "deb.debian.org",
  apk: "dl-cdn.alpinelinux.org",
  image: "registry-1.docker.io",
};

/** `the npm registry (registry.npmjs.org)`, or the host alone when it is a mirror nobody knows. */
export function registryName(host: string): string {
  const known = KNOWN_HOSTS.find(([pattern]) => pattern.test(host))?.[1];
  return known ? `${known} (${host})` : host;
}

/** Whether `host` is a public registry this reading knows (not an app's own server). */
export function isKnownRegistry(host: string): boolean {
  return KNOWN_HOSTS.some(([pattern]) => pattern.test(host));
}

/** The host of a URL (`https://registry.npmjs.org/left-pad` → `registry.npmjs.org`), or null. */
export function urlHost(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase() || null;
  } catch {
    return null;
  }
}
