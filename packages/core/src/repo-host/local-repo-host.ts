import { execFile } from "node:child_process";
import { createReadStream, realpathSync, type Dirent } from "node:fs";
import { lstat, readdir, readFile, realpath, stat } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createGzip } from "node:zlib";
import { pack } from "tar-stream";
import { RepositeError } from "../errors.js";
import { clip, readReadme, withoutLinks } from "../generation/readme-reader.js";
import type { RepoFacts, RepoHost, RepoLink } from "../ports/repo-host.js";
import { EXCLUDED_FOLDERS, namesExcludedFolder } from "./excluded-folders.js";
import { archiveStream, gitEnvironment, README, readmeOrder, SAFE_REF } from "./git-repo-host.js";

export interface LocalRepoHostOptions {
  /**
   * Folders of this machine the operator allows (REPOSITE_LOCAL_REPOS): each is a repository, and
   * so is every folder inside it. Links to anything else are not this host's, so people can only
   * name what the operator opened. Each must exist when the host is made.
   */
  folders: string[];
  /**
   * Folders never read, even inside an allowed folder: the server's own data directory (its
   * records and secret key), which may well sit inside a checkout the operator allows.
   */
  hidden?: string[];
  /** The git binary, used for folders that are git checkouts. Default `git` on the PATH. */
  git?: string;
  /** Time limit of one git command in milliseconds. Default 60 000. Without git, every folder is a plain folder. */
  timeoutMs?: number;
}

/** Folders never put in a working tree's archive: installed packages and git's own data. */
const SKIPPED = EXCLUDED_FOLDERS;
const MAX_README_BYTES = 8 * 1024 * 1024;

/**
 * Repositories in folders of the server's own machine: `file:///abs/path` links or plain absolute
 * paths, inside a folder the operator allowed. Paths are canonicalised (`..` and symbolic links
 * resolved) before the check, so no link leads out of an allowed folder. A git checkout's source
 * is `git archive` of a commit (uncommitted changes are not in it); a plain folder's is its working
 * tree without `node_modules` and `.git`. Symbolic links are left out of archives and READMEs that
 * lead outside the repository are not read.
 */
export function createLocalRepoHost(options: LocalRepoHostOptions): RepoHost {
  const gitBinary = options.git ?? "git";
  const timeout = options.timeoutMs ?? 60_000;
  const env = gitEnvironment();
  const allowed = options.folders.map((folder) => {
    if (!isAbsolute(folder)) throw new Error(`[reposite] [local repos] "${folder}" is not an absolute path.`);
    try {
      return realpathSync(folder);
    } catch {
      throw new Error(`[reposite] [local repos] "${folder}" is not a folder of this machine.`);
    }
  });
  const hidden = (options.hidden ?? []).map((folder) => canonicalPath(resolve(folder)));
  // A `.git` or `node_modules` folder below an allowed folder is no repository, as archives leave them out.
  const isAllowed = (path: string) =>
    allowed.some((folder) => isInside(path, folder) && !namesExcludedFolder(relative(folder, path).split(sep).join("/"))) &&
    !hidden.some((folder) => isInside(path, folder));

  const git = (args: string[], cwd: string) =>
    new Promise<string | null>((resolvePromise, reject) => {
      execFile(gitBinary, args, { cwd, env, timeout, encoding: "utf8", windowsHide: true }, (error, stdout) => {
        if (!error) return resolvePromise(stdout.trim());
        // git said no (not a checkout, no such ref), or there is no git: folders are then plain folders.
        resolvePromise(null);
      });
    });

  /** The folder a link names, once more canonical and allowed now (a symbolic link may have changed), or null. */
  const folderOf = async (repo: RepoLink): Promise<string | null> => {
    let path: string;
    try {
      path = await realpath(fileURLToPath(repo.url));
    } catch {
      return null;
    }
    if (!isAllowed(path)) return null;
    return (await stat(path)).isDirectory() ? path : null;
  };

  /** True when `folder` is the top of a git working tree (a sub-folder of a checkout is a plain folder). */
  const isCheckout = async (folder: string) => {
    const top = await git(["rev-parse", "--show-toplevel"], folder);
    return top !== null && (await realpath(top).catch(() => top)) === folder;
  };

  return {
    id: "local",
    exampleLink: pathToFileURL(allowed[0] ?? "/path/to/repository").href,

    parseLink(link) {
      const text = link.trim();
      if (!text || text.includes("\0")) return null;
      let path: string;
      if (/^file:/i.test(text)) {
        try {
          path = fileURLToPath(text);
        } catch {
          return null; // another machine's file:// link, or not a URL
        }
      } else if (isAbsolute(text)) {
        path = text;
      } else {
        return null;
      }
      const canonical = canonicalPath(resolve(path));
      if (!isAllowed(canonical)) return null;
      return { host: "local", owner: "local", name: basename(canonical) || "root", url: pathToFileURL(canonical).href };
    },

    async getRepository(repo) {
      const folder = await folderOf(repo);
      if (!folder) return null;
      const manifest = await packageJson(folder);
      const readme = readReadme(await readmeOf(folder));
      const facts: RepoFacts = {
        owner: repo.owner,
        name: repo.name,
        // A folder's name is only where it was checked out ("repo", "main"); its README's title names the product.
        ...(readme.title ? { title: clip(readme.title, 100) } : {}),
        url: repo.url,
        private: false,
        description: manifest.description ?? withoutLinks(readme.tagline ?? "").slice(0, 500),
        topics: manifest.keywords,
        // A checkout's branch; detached, or a plain folder, is HEAD: what is there now.
        defaultBranch: ((await isCheckout(folder)) && (await git(["symbolic-ref", "--short", "-q", "HEAD"], folder))) || "HEAD",
      };
      return facts;
    },

    async getReadme(repo) {
      const folder = await folderOf(repo);
      return folder ? readmeOf(folder) : null;
    },

    async getSourceArchive(repo, ref) {
      const folder = await folderOf(repo);
      if (!folder) throw refNotFound(repo, ref);
      if (ref !== undefined && !SAFE_REF.test(ref)) {
        throw new RepositeError(422, `"${ref.slice(0, 100)}" is not a branch, tag or commit name git accepts.`, "invalid_ref", { field: "ref" });
      }
      if (await isCheckout(folder)) {
        const commit = await git(["rev-parse", "--verify", "--quiet", `${ref ?? "HEAD"}^{commit}`], folder);
        if (commit) return archiveStream(gitBinary, env, folder, commit, `${repo.name}-${commit.slice(0, 7)}/`, async () => {});
        // A checkout without a commit yet has only its working tree.
        if (ref !== undefined) throw refNotFound(repo, ref);
      } else if (ref !== undefined && ref !== "HEAD") {
        throw refNotFound(repo, ref); // a plain folder has no branches
      }
      return workingTreeArchive(folder, `${repo.name}/`, (path) => hidden.some((folder) => isInside(path, folder)));
    },
  };
}

/**
 * The real path of `path`: symbolic links of the part that exists resolved, the rest (a folder
 * not made yet) appended as written. `resolve` already removed `.` and `..`.
 */
function canonicalPath(path: string): string {
  let existing = path;
  while (true) {
    try {
      const real = realpathSync(existing);
      const rest = relative(existing, path);
      return rest ? join(real, rest) : real;
    } catch {
      const parent = dirname(existing);
      if (parent === existing) return path;
      existing = parent;
    }
  }
}

/** `description` and `keywords` of the folder's package.json, when it has one that reads. */
async function packageJson(folder: string): Promise<{ description?: string; keywords: string[] }> {
  try {
    const data = JSON.parse(await readFile(join(folder, "package.json"), "utf8")) as { description?: unknown; keywords?: unknown };
    const description = typeof data.description === "string" && data.description.trim() ? data.description.trim().slice(0, 500) : undefined;
    const keywords = Array.isArray(data.keywords) ? data.keywords.filter((word): word is string => typeof word === "string").slice(0, 20) : [];
    return { ...(description ? { description } : {}), keywords };
  } catch {
    return { keywords: [] };
  }
}

/** The folder's README (README.md first), a regular file inside the folder, or null. */
async function readmeOf(folder: string): Promise<string | null> {
  const names = (await readdir(folder)).filter((name) => README.test(name)).sort(readmeOrder);
  for (const name of names) {
    const path = join(folder, name);
    const real = await realpath(path).catch(() => null);
    if (!real || dirname(real) !== folder) continue; // a link that leads elsewhere
    const info = await stat(real);
    if (!info.isFile() || info.size > MAX_README_BYTES) continue;
    return readFile(real, "utf8");
  }
  return null;
}

/** True when `path` is `folder` or inside it. */
function isInside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

/** The working tree as a gzipped tarball under `prefix`, read file by file as the reader asks; `skip` leaves paths out. */
function workingTreeArchive(folder: string, prefix: string, skip: (path: string) => boolean): ReadableStream<Uint8Array> {
  const tar = pack();
  const gzip = createGzip();
  tar.pipe(gzip);
  let stopped = false;
  gzip.once("close", () => {
    stopped = true;
  });

  const add = (header: Parameters<typeof tar.entry>[0], source?: string) =>
    new Promise<void>((resolvePromise, reject) => {
      const sink = tar.entry(header, (error) => (error ? reject(error) : resolvePromise()));
      if (source === undefined) return;
      const file = createReadStream(source);
      file.once("error", reject);
      file.pipe(sink);
    });

  const walk = async (dir: string, path: string): Promise<void> => {
    const entries: Dirent[] = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (stopped) return;
      const full = join(dir, entry.name);
      if (SKIPPED.has(entry.name) || skip(full)) continue;
      // lstat: a symbolic link is never followed, so nothing outside the folder is read.
      const info = await lstat(full);
      if (info.isDirectory()) {
        await add({ name: `${path}${entry.name}/`, type: "directory", mode: 0o755, mtime: info.mtime });
        await walk(full, `${path}${entry.name}/`);
      } else if (info.isFile()) {
        await add({ name: `${path}${entry.name}`, type: "file", size: info.size, mode: info.mode & 0o111 ? 0o755 : 0o644, mtime: info.mtime }, full);
      }
    }
  };

  void (async () => {
    try {
      await add({ name: prefix, type: "directory", mode: 0o755 });
      await walk(folder, prefix);
      tar.finalize();
    } catch (error) {
      const failure = new RepositeError(502, `The folder ${folder} could not be read: ${(error as Error).message}`, "repohost_unavailable");
      gzip.destroy(failure);
      tar.destroy();
    }
  })();
  return Readable.toWeb(gzip) as ReadableStream<Uint8Array>;
}

function refNotFound(repo: RepoLink, ref: string | undefined): RepositeError {
  const what = ref ? `Ref "${ref}"` : "The source";
  return new RepositeError(404, `${what} of ${repo.url} was not found on this server.`, "ref_not_found");
}
