import type { RepoLink } from "../ports/repo-host.js";
import { namesExcludedFolder } from "./excluded-folders.js";

/** GitHub logins: 1–39 alphanumerics and single inner hyphens. */
const OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;
const REPO = /^[A-Za-z0-9._-]{1,100}$/;

/** First path segments that are GitHub pages, not accounts; no user can be called this. */
const RESERVED_OWNERS = new Set([
  "about", "account", "apps", "blog", "codespaces", "collections", "contact", "customer-stories",
  "dashboard", "enterprise", "enterprises", "events", "explore", "features", "gist", "issues",
  "join", "login", "logout", "marketplace", "new", "notifications", "orgs", "organizations",
  "pricing", "pulls", "search", "security", "sessions", "settings", "signup", "site", "sponsors",
  "stars", "topics", "trending", "users",
]);

const WEB_SCHEMES = new Set(["https:", "http:", "git+https:"]);
const GIT_SCHEMES = new Set(["ssh:", "git:", "git+ssh:"]);
/** `git@github.com:owner/repo.git`, the form GitHub's "Clone › SSH" button copies. */
const SCP_LIKE = /^git@([^:/\s]+):(.+)$/i;

/**
 * Understands a link to a GitHub repository in any form people paste: web pages (also `/tree/…`,
 * `/blob/…`, issues and other sub-pages), clone URLs over HTTPS, SSH and git, with or without a
 * scheme. Answers null for anything that does not name exactly one repository on `webHosts`.
 *
 * `/tree/<ref>/<path>` is ambiguous when the branch name has a slash (`feature/x`); like most tools
 * we take the first segment as the ref.
 */
export function parseGitHubLink(link: string, webHosts: string[] = ["github.com"]): RepoLink | null {
  const text = link.trim();
  if (!text || /\s/.test(text)) return null;

  const scp = SCP_LIKE.exec(text);
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text);
  const url = tryUrl(scp ? `ssh://git@${scp[1]}/${scp[2]}` : hasScheme ? text : `https://${text}`);
  if (!url) return null;
  const isWebPage = WEB_SCHEMES.has(url.protocol);
  if (!isWebPage && !GIT_SCHEMES.has(url.protocol)) return null;

  const webHost = matchHost(url, webHosts);
  if (!webHost) return null;

  const segments = url.pathname.split("/").filter(Boolean).map(tryDecode);
  if (segments.some((segment) => segment === null)) return null;
  const [owner, rawName, page, ref, ...path] = segments as string[];
  if (!owner || !rawName || RESERVED_OWNERS.has(owner.toLowerCase()) || !OWNER.test(owner)) return null;
  const name = rawName.endsWith(".git") ? rawName.slice(0, -4) : rawName;
  if (!REPO.test(name) || name === "." || name === "..") return null;
  // Clone URLs name a repository and nothing inside it.
  if (!isWebPage && page !== undefined) return null;

  // `…/tree/main/.git`, `…/blob/main/node_modules/x` or `…/r/.git` name what archives leave out, not the source.
  const inside = page === "tree" || page === "blob" ? path : [page, ref, ...path].filter((segment) => segment !== undefined);
  if (namesExcludedFolder(inside.join("/"))) return null;

  const result: RepoLink = { host: "github", owner, name, url: `https://${webHost}/${owner}/${name}` };
  if ((page === "tree" || page === "blob") && ref) {
    result.ref = ref;
    if (path.length > 0) result.path = path.join("/");
  }
  return result;
}

function tryUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

function tryDecode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/** The configured web host the link points at (`www.` allowed), or undefined. */
function matchHost(url: URL, webHosts: string[]): string | undefined {
  for (const configured of webHosts) {
    const webHost = configured.toLowerCase();
    // A configured host without a port matches the host on any port (ssh://git@host:22/…).
    // Hosts of non-special schemes (ssh:, git:) keep their case in URL.
    const actual = (webHost.includes(":") ? url.host : url.hostname).toLowerCase();
    if (actual === webHost || actual === `www.${webHost}`) return webHost;
  }
  return undefined;
}
