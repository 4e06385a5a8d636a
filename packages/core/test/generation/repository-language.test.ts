import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createStorage } from "unstorage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReposite, type Reposite } from "../../src/index.js";
import { repositoryLanguage } from "../../src/repo-analysis/repository-language.js";
import { finish } from "../job-chain.js";

/**
 * Issue 23: About said "Python" for a Rust tool (a guess from the README's code samples) and showed
 * the server's path of a local project as its repository. The language now comes from the share of
 * the repository's source files by extension; a local folder is named, never located.
 */

describe("repositoryLanguage", () => {
  it("answers the language most source files are in, not counting docs, data, builds or dependencies", () => {
    const paths = ["src/main.rs", "src/lib.rs", "crates/core/src/search.rs", "scripts/release.py", "README.md", "Cargo.toml", "docs/conf.py", "target/debug/build/x.py", "node_modules/a/b.js", "node_modules/a/c.js", "node_modules/a/d.js"];
    expect(repositoryLanguage(paths)).toBe("Rust");
  });

  it("counts headers for C, or for C++ when C++ files outnumber C files", () => {
    expect(repositoryLanguage(["a.c", "b.c", "a.h", "b.h", "c.h", "tools/x.py", "tools/y.py", "tools/z.py", "tools/w.py"])).toBe("C");
    expect(repositoryLanguage(["a.cpp", "b.cpp", "a.h", "b.h", "c.c", "x.py", "y.py", "z.py"])).toBe("C++");
  });

  it("knows shell projects (zsh themes and plugins) and answers null for a repository without source", () => {
    expect(repositoryLanguage(["themes/robbyrussell.zsh-theme", "themes/agnoster.zsh-theme", "plugins/git/git.plugin.zsh", "tools/check.py"])).toBe("Shell");
    expect(repositoryLanguage(["README.md", "data/cities.csv", "config.yaml"])).toBeNull();
  });
});

describe("About for a local folder's project, generated", () => {
  let root: string;
  let folder: string;
  let reposite: Reposite;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "reposite-language-"));
    folder = join(root, "checkouts", "fastgrep");
    await mkdir(join(folder, "src"), { recursive: true });
    await mkdir(join(folder, "scripts"), { recursive: true });
    // A Rust tool whose README shows Python and a pip install: what made About say "Python".
    await writeFile(
      join(folder, "README.md"),
      "# fastgrep\n\nfastgrep searches folders for a pattern, fast.\n\n## Installation\n\n```sh\npip install fastgrep-bindings\n```\n\n## Usage from Python\n\n```python\nimport fastgrep\nfastgrep.search('TODO', '.')\n```\n",
    );
    for (const name of ["main.rs", "search.rs", "walk.rs", "output.rs"]) await writeFile(join(folder, "src", name), "fn main() {}\n");
    await writeFile(join(folder, "scripts", "bench.py"), "print('bench')\n");
    await writeFile(join(folder, "Cargo.toml"), "[package]\nname = \"fastgrep\"\n");
    reposite = createReposite({ storage: createStorage(), localRepos: [root], config: { dataDir: join(root, "data") } });
  });
  afterAll(async () => {
    await reposite?.close();
    await rm(root, { recursive: true, force: true });
  });

  it("says the language of the repository's files and the folder's name, never the server's path", async () => {
    const ownerId = (await reposite.accounts.findOrCreate("local@example.com")).account.id;
    const siteId = (await reposite.projects.create(ownerId, { repohost_url: pathToFileURL(folder).href })).id;
    const started = await reposite.generation.generate(ownerId, siteId, { mode: "website", pages: ["about"] });
    await finish(reposite, ownerId, started.job_id);
    const versions = await reposite.pageVersions.list(ownerId, siteId, "about");
    const { html } = await reposite.pageVersions.get(ownerId, versions.find((version) => version.current)!.id);
    expect(html).toContain("<dt>Language</dt><dd>Rust</dd>");
    expect(html).toContain("<dt>Repository</dt><dd>fastgrep</dd>");
    expect(html).not.toContain(root);
  });
});
