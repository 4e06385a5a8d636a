import { execFile, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { RepositeError } from "../errors.js";
import type { RepoFacts, RepoHost, RepoLink } from "../ports/repo-host.js";
import { namesExcludedFolder } from "./excluded-folders.js";

export interface GitRepoHostOptions {
  /**
   * Hostnames the operator enabled, for example `["gitlab.example.com"]`. Links to any other host
   * are not this repo host's; with an empty list it understands no link at all.
   */
  hosts: string[];
  /**
   * Where repositories of a host are cloned from, by hostname: a base address the repository path
   * (plus `.git`) is appended to, for example `{ "git.internal": "ssh://git@git.internal:2222" }`.
   * Default: the web address of the link (`https://<host>`).
   */
  cloneUrls?: Record<string, string>;
  /** The git binary. Default `git` on the PATH. */
  git?: string;
  /** Folder for temporary clones; every call works in its own sub-folder and removes it. */
  workDir: string;
  /** Time limit of one git command (clone, ls-remote) in milliseconds. Default 120 000. */
  timeoutMs?: number;
}

/** What a repository path segment may look like (GitLab, Gitea, cgit, plain servers). */
const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}$/;
const MAX_DEPTH = 20;
const WEB_SCHEMES = new Set(["https:", "http:", "git+https:"]);
const GIT_SCHEMES = new Set(["ssh:", "git:", "git+ssh:"]);
/** `git@host:group/repo.git`, the scp-like form; a user part is required so `host:8080/x` is not one. */
const SCP_LIKE = /^([A-Za-z0-9._-]+)@([A-Za-z0-9.-]+):(?!\/)(\S+)$/;
/** A branch or tag name git accepts (a safe subset), or a commit id. */
export const SAFE_REF = /^(?!-)(?!.*\.\.)(?!.*@\{)(?!.*\/\/)(?!.*\.lock$)(?!\/)[A-Za-z0-9._\/+@-]{1,250}(?<![/.])$/;
const FULL_SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/i;
const SHORT_SHA = /^[0-9a-f]{7,39}$/i;
export const README = /^readme(?:\.(?:md|markdown|mdown|mkd|rst|txt|adoc|asciidoc|org))?$/i;

/** stderr of git that means "no such repository, or not visible without credentials". */
const REPO_MISSING =
  /repository .*not found|not found|does not exist|not exported|access denied|could not read (?:username|password)|authentication failed|terminal prompts disabled|permission denied|HTTP (?:401|403|404)|not a git repository|does not appear to be a git repository/i;
/** stderr of git that means "the repository is there but the ref is not". */
const REF_MISSING = /remote branch .* not found|couldn't find remote ref|not our ref|unknown revision|invalid reference|bad revision|needed a single revision/i;

interface GitFailure {
  stderr: string;
  timedOut: boolean;
}

/**
 * Repositories on any git server the operator enables (GitLab, Gitea, cgit, `git daemon`, …),
 * through the `git` command line: never a shell, never a prompt. What git cannot tell is left
 * plain: `private` is false, `description` empty, `topics` empty. Credentials for private
 * repositories come from the operator's own git setup (SSH keys, credential helpers); `access`
 * is not used.
 */
export function createGitRepoHost(options: GitRepoHostOptions): RepoHost {
  const gitBinary = options.git ?? "git";
  const timeout = options.timeoutMs ?? 120_000;
  // Hostnames only: a port written in the list is ignored (links match on any port).
  const enabled = new Set(options.hosts.map((host) => host.trim().toLowerCase().replace(/:\d+$/, "")).filter(Boolean));
  const cloneBases = new Map(Object.entries(options.cloneUrls ?? {}).map(([host, base]) => [host.toLowerCase(), base.replace(/\/+$/, "")]));

  const env = gitEnvironment();

  const git = (args: string[], cwd?: string, maxBuffer = 16 * 1024 * 1024) =>
    new Promise<string>((resolve, reject) => {
      execFile(gitBinary, args, { cwd, env, timeout, maxBuffer, encoding: "utf8", windowsHide: true }, (error, stdout, stderr) => {
        if (!error) return resolve(stdout);
        const spawnFailed = (error as NodeJS.ErrnoException).code === "ENOENT" && !stderr;
        if (spawnFailed) return reject(unavailable(`The git command "${gitBinary}" was not found on this server.`));
        reject({ stderr: String(stderr ?? ""), timedOut: error.killed === true } satisfies GitFailure);
      });
    });

  const cloneUrl = (repo: RepoLink) => {
    const url = new URL(repo.url);
    return `${cloneBases.get(url.hostname.toLowerCase()) ?? url.origin}/${repo.owner}/${repo.name}.git`;
  };

  /** A fresh folder for one call; removed by the caller. */
  const scratch = async () => {
    await mkdir(options.workDir, { recursive: true });
    return mkdtemp(join(options.workDir, "git-"));
  };

  /** A shallow clone without a working tree at `ref` (default branch when undefined). */
  const cloneAt = async (repo: RepoLink, dir: string, ref: string | undefined): Promise<string> => {
    const url = cloneUrl(repo);
    if (ref && FULL_SHA.test(ref)) {
      await git(["init", "--quiet", "--template=", dir]);
      try {
        await git(["fetch", "--quiet", "--depth", "1", url, ref], dir);
        return "FETCH_HEAD";
      } catch (error) {
        // Servers that only hand out advertised refs refuse a commit id; a full clone finds it.
        if (classify(error) !== "ref") throw error;
        await rm(dir, { recursive: true, force: true });
        await git(["clone", "--quiet", "--no-checkout", "--template=", url, dir]);
        return ref;
      }
    }
    try {
      await git(["clone", "--quiet", "--depth", "1", "--no-checkout", "--template=", ...(ref ? ["--branch", ref] : []), url, dir]);
      return "HEAD";
    } catch (error) {
      if (!(ref && SHORT_SHA.test(ref) && classify(error) === "ref")) throw error;
      await rm(dir, { recursive: true, force: true });
      await git(["clone", "--quiet", "--no-checkout", "--template=", url, dir]);
      return ref;
    }
  };

  return {
    id: "git",

    ...(enabled.size > 0 ? { exampleLink: `https://${[...enabled][0]}/group/repository` } : {}),

    parseLink: (link) => parseGitLink(link, enabled),

    async getRepository(repo) {
      let listing: string;
      try {
        listing = await git(["ls-remote", "--symref", cloneUrl(repo), "HEAD"]);
      } catch (error) {
        if (classify(error) === "repo") return null;
        throw toRepositeError(error, repo);
      }
      const symref = /^ref: refs\/heads\/(\S+)\s+HEAD$/m.exec(listing);
      const facts: RepoFacts = {
        owner: repo.owner,
        name: repo.name,
        url: repo.url,
        private: false,
        description: "",
        topics: [],
        // A server that does not tell where HEAD points (old protocol) leaves it as HEAD.
        defaultBranch: symref?.[1] ?? "HEAD",
      };
      return facts;
    },

    async getReadme(repo) {
      const dir = await scratch();
      try {
        const url = cloneUrl(repo);
        try {
          // Blobs are fetched on demand (where the server allows filters), so only the README travels.
          await git(["clone", "--quiet", "--depth", "1", "--filter=blob:none", "--no-checkout", "--template=", url, join(dir, "r")]);
        } catch (error) {
          if (classify(error) === "repo") return null;
          throw toRepositeError(error, repo);
        }
        const work = join(dir, "r");
        let names: string[];
        try {
          names = (await git(["ls-tree", "--name-only", "HEAD"], work)).split("\n").filter(Boolean);
        } catch {
          return null; // An empty repository has no HEAD commit.
        }
        const readme = names.filter((name) => README.test(name)).sort(readmeOrder)[0];
        if (!readme) return null;
        try {
          return await git(["show", `HEAD:${readme}`], work, 8 * 1024 * 1024);
        } catch (error) {
          throw toRepositeError(error, repo);
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },

    async getSourceArchive(repo, ref) {
      if (ref !== undefined && !SAFE_REF.test(ref)) {
        throw new RepositeError(422, `"${ref.slice(0, 100)}" is not a branch, tag or commit name git accepts.`, "invalid_ref", { field: "ref" });
      }
      const dir = await scratch();
      try {
        const work = join(dir, "r");
        let revision: string;
        let commit: string;
        try {
          revision = await cloneAt(repo, work, ref);
        } catch (error) {
          const kind = classify(error);
          if (kind === "repo" || kind === "ref") throw refNotFound(repo, ref);
          throw toRepositeError(error, repo);
        }
        try {
          commit = (await git(["rev-parse", "--verify", "--quiet", `${revision}^{commit}`], work)).trim();
        } catch {
          throw refNotFound(repo, ref); // an empty repository, or a commit id the full clone lacks
        }
        return archiveStream(gitBinary, env, work, commit, `${repo.name}-${commit.slice(0, 7)}/`, () =>
          rm(dir, { recursive: true, force: true }),
        );
      } catch (error) {
        await rm(dir, { recursive: true, force: true });
        throw error;
      }
    },
  };
}

/**
 * Understands links to repositories on `enabledHosts`: web pages (`https://host/group/sub/repo`,
 * GitLab's `/-/tree/<ref>/<path>`), clone URLs over HTTPS, SSH (`ssh://`, `git@host:path`) and
 * `git://`. The canonical `url` is the web address, `https://host/group/…/repo` (a git or SSH
 * port is not part of it). `owner` is the whole group path, `name` the last segment.
 */
export function parseGitLink(link: string, enabledHosts: Set<string>): RepoLink | null {
  const text = link.trim();
  if (!text || /\s/.test(text)) return null;
  const scp = SCP_LIKE.exec(text);
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text);
  let url: URL;
  try {
    url = new URL(scp ? `ssh://${scp[1]}@${scp[2]}/${scp[3]}` : hasScheme ? text : `https://${text}`);
  } catch {
    return null;
  }
  const isWeb = WEB_SCHEMES.has(url.protocol);
  if (!isWeb && !GIT_SCHEMES.has(url.protocol)) return null;
  const hostname = url.hostname.toLowerCase();
  if (!enabledHosts.has(hostname)) return null;
  if (url.password) return null; // a password never belongs in a stored link

  let segments: string[];
  try {
    segments = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  } catch {
    return null;
  }
  let ref: string | undefined;
  let path: string | undefined;
  const dash = segments.indexOf("-");
  if (dash !== -1) {
    if (!isWeb) return null;
    const [page, refName, ...rest] = segments.slice(dash + 1);
    if ((page === "tree" || page === "blob") && refName) {
      ref = refName;
      // `…/-/tree/main/.git` names what archives leave out, not the source.
      if (namesExcludedFolder(rest.join("/"))) return null;
      if (rest.length > 0) path = rest.join("/");
    }
    segments = segments.slice(0, dash);
  }
  if (segments.length < 2 || segments.length > MAX_DEPTH) return null;
  const last = segments[segments.length - 1]!;
  segments[segments.length - 1] = last.endsWith(".git") ? last.slice(0, -4) : last;
  if (!segments.every((segment) => SEGMENT.test(segment) && !segment.endsWith(".git"))) return null;

  const origin = isWeb ? `${url.protocol === "http:" ? "http" : "https"}://${url.host.toLowerCase()}` : `https://${hostname}`;
  const name = segments.pop()!;
  const owner = segments.join("/");
  const result: RepoLink = { host: "git", owner, name, url: `${origin}/${owner}/${name}` };
  if (ref) result.ref = ref;
  if (path) result.path = path;
  return result;
}

/** The environment of every git command: never a prompt, messages in English, no inherited repository. */
export function gitEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: "0", GCM_INTERACTIVE: "never", LC_ALL: "C", LANGUAGE: "C" };
  env.GIT_SSH_COMMAND ??= "ssh -o BatchMode=yes";
  // Set when Reposite itself runs inside a git hook; they would point every command elsewhere.
  for (const name of ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR"]) delete env[name];
  return env;
}

/** `git archive` of `commit` as a gzipped tarball stream; `done` runs once git has finished or the reader gave up. */
export function archiveStream(
  gitBinary: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
  commit: string,
  prefix: string,
  done: () => Promise<void>,
): ReadableStream<Uint8Array> {
  const child = spawn(gitBinary, ["archive", "--format=tar.gz", `--prefix=${prefix}`, commit], {
    cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    windowsHide: true,
  });
  let stderr = "";
  let cleanup: Promise<void> | undefined;
  const finish = () => (cleanup ??= done().catch(() => {}));
  let cancelled = false;
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => {
    if (stderr.length < 4000) stderr += chunk;
  });
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        child.stdout.on("data", (chunk: Buffer) => {
          if (cancelled) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 1) <= 0) child.stdout.pause();
        });
        // The stream ends only once the clone is removed, so a reader that finished leaves nothing behind.
        child.once("error", (error) => {
          void finish().then(() => {
            if (!cancelled) controller.error(unavailable(`git archive could not run (${error.message}).`));
          });
        });
        child.once("close", (code) => {
          void finish().then(() => {
            if (cancelled) return;
            if (code === 0) controller.close();
            else controller.error(unavailable(`git archive failed: ${lastLine(stderr)}`));
          });
        });
      },
      pull() {
        child.stdout.resume();
      },
      cancel() {
        cancelled = true;
        child.kill();
        return finish();
      },
    },
    { highWaterMark: 16 },
  );
}

function classify(error: unknown): "repo" | "ref" | "other" {
  if (RepositeError.isInstance(error) || typeof error !== "object" || error === null || !("stderr" in error)) return "other";
  const { stderr, timedOut } = error as GitFailure;
  if (timedOut) return "other";
  if (REF_MISSING.test(stderr)) return "ref";
  if (REPO_MISSING.test(stderr)) return "repo";
  return "other";
}

function toRepositeError(error: unknown, repo: RepoLink): RepositeError {
  if (RepositeError.isInstance(error)) return error;
  const failure = error as Partial<GitFailure>;
  if (failure.timedOut) return unavailable(`git took too long to reach ${repo.url}.`);
  return unavailable(`git could not read ${repo.url}: ${lastLine(failure.stderr ?? String(error))}`);
}

function refNotFound(repo: RepoLink, ref: string | undefined): RepositeError {
  const what = ref ? `Ref "${ref}"` : "The default branch";
  return new RepositeError(404, `${what} of ${repo.url} was not found, or the repository is not visible to this server.`, "ref_not_found");
}

function unavailable(message: string): RepositeError {
  return new RepositeError(502, message, "repohost_unavailable");
}

/** The last meaningful line git wrote, with any credentials in addresses blanked. */
function lastLine(text: string): string {
  const lines = text.split("\n").map((line) => line.trim()).filter(Boolean);
  const line = lines[lines.length - 1] ?? "no details";
  return line.replace(/\/\/[^/@\s]+@/g, "//***@").slice(0, 300);
}

/** README.md first, then other README files by name. */
export function readmeOrder(a: string, b: string): number {
  const rank = (name: string) => (/\.(md|markdown)$/i.test(name) ? 0 : /^readme$/i.test(name) ? 1 : 2);
  return rank(a) - rank(b) || a.localeCompare(b);
}
