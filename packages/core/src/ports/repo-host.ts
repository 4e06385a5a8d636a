import type { InjectionToken } from "tsyringe";

/** A repository named by a link, before anything is known about it. */
export interface RepoLink {
  /** Which repo host understood the link, for example `github`. */
  host: string;
  owner: string;
  name: string;
  /** The canonical web address, for example `https://github.com/unjs/h3`. */
  url: string;
  /** Branch, tag or commit named in the link (`/tree/<ref>/…`), if any. */
  ref?: string;
  /** Path inside the repository named in the link, if any. */
  path?: string;
}

/** What the repo host tells about a repository. */
export interface RepoFacts {
  owner: string;
  name: string;
  /**
   * The product's own name, for hosts whose repository names say little about it (a local
   * folder is named after where it was checked out): its README's title. New projects take it.
   */
  title?: string;
  url: string;
  private: boolean;
  description: string;
  topics: string[];
  defaultBranch: string;
}

/** Credentials of the account asking, when it has connected the repo host (later issues). */
export interface RepoAccess {
  accessToken?: string;
}

/**
 * Where repositories live. Small on purpose: parse a link, read facts and the README, fetch the
 * source at a ref. Implementations throw `RepositeError` for failures a caller should see
 * (502 `repohost_unavailable`, 503 `repohost_rate_limited`).
 */
export interface RepoHost {
  readonly id: string;
  /** A link in the form this host understands, shown when a link is refused, for example `https://github.com/owner/repository`. */
  readonly exampleLink?: string;
  /** Understands a link in any form this host's users paste, or answers null. */
  parseLink(link: string): RepoLink | null;
  /** Facts of the repository, or null when it does not exist or is not visible with `access`. */
  getRepository(repo: RepoLink, access?: RepoAccess): Promise<RepoFacts | null>;
  /** The README as text, or null when the repository has none. */
  getReadme(repo: RepoLink, access?: RepoAccess): Promise<string | null>;
  /** The source at `ref` (branch, tag or commit; default branch when omitted) as a gzipped tarball stream. */
  getSourceArchive(repo: RepoLink, ref?: string, access?: RepoAccess): Promise<ReadableStream<Uint8Array>>;
}

/** Every configured repo host; the first one that parses a link owns it. */
export const REPO_HOSTS: InjectionToken<RepoHost[]> = Symbol.for("reposite.RepoHosts");
