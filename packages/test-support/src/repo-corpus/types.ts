/** Where a corpus entry's files come from. */
export interface CorpusOrigin {
  /** `owner/name` on GitHub. */
  repo: string;
  /** The commit the files were read at (40 hex digits). */
  commit: string;
  /** The folder of the repository the entry is (`""` for the root; `examples/hello` for an example). */
  path: string;
  /** The license of the repository (SPDX id), or what its README says when it has no LICENSE file. */
  license: string;
}

/** The answer a careful engineer gives for the repository. Only the fields given are checked. */
export interface CorpusExpectation {
  /** `dockerfile`: the repository's own Dockerfile is built; `auto`: Reposite writes one; `none`: Reposite should say it cannot tell. */
  mode: "dockerfile" | "auto" | "none";
  /** `dockerfile`: the Dockerfile built (as `dockerfile_found` or the path asked for). */
  dockerfile?: string;
  /** The port the app listens on: the first `EXPOSE` of the analysed or written Dockerfile. */
  port?: number;
  /** `auto`: a static site served from `output`, or a server started by `start`. */
  serves?: "static" | "server";
  /** `auto`: the start command, exactly. */
  start?: string;
  /** `auto`: words the start command must hold (when the exact line is a matter of taste). */
  start_includes?: string[];
  /** `auto`: words the start command must not hold (a dev server, a build tool). */
  start_excludes?: string[];
  /** `auto`, static: the folder served. */
  output?: string;
  /** `auto`: words the detected name must hold (case-insensitive), e.g. `Streamlit`. */
  name_includes?: string;
  /** `auto`: lines the written Dockerfile must hold (`WORKDIR /app`, a copied templates folder…). */
  dockerfile_includes?: string[];
  /** `none`: words the reason must hold (the apps of a monorepo to choose from, say). */
  reason_includes?: string[];
  /** Words some warning must hold, one warning per entry (the analysis's or the written build's). */
  warnings_include?: string[];
  /** Settings (`setup.vars`): names that must be required, optional, or absent. */
  vars?: { required?: string[]; optional?: string[]; absent?: string[] };
}

/** One real repository, as `entry.json` describes it. */
export interface CorpusEntryFile {
  origin: CorpusOrigin;
  /** What the repository is: `Express`, `Go (Gin)`, `turborepo`… */
  stack: string;
  /** Every file kept in `files/`, relative to the entry's folder of the repository. */
  files: string[];
  /** The setup the person gives (`root_dir` to choose one app of a monorepo, `dockerfile_path`). */
  setup?: { root_dir?: string; dockerfile_path?: string };
  expected: CorpusExpectation;
  /** Why the expected answer is the right one, in a sentence or two. */
  why: string;
}

/** A corpus entry read from disk. */
export interface CorpusEntry extends CorpusEntryFile {
  /** The entry's folder name. */
  id: string;
  /** The kept files' text, path → content. */
  contents: Record<string, string>;
}
