import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, readTar, repoHostContract, failure, git, GIT_ENV } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGitRepoHost, parseGitLink } from "../src/repo-host/git-repo-host.js";
import type { RepoHost, RepoLink } from "../src/ports/repo-host.js";

/** A `git daemon` on 127.0.0.1 serving repositories made in a temp folder. */
interface GitServer {
  port: number;
  root: string;
  /** Commit ids by name: `main`, `v1`, `feature`. */
  commits: Record<string, string>;
  close(): Promise<void>;
}

async function waitForPort(port: number, daemon: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (daemon.exitCode !== null) throw new Error(`git daemon exited with ${daemon.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("git daemon did not start listening");
}

/**
 * acme/hello: README.md + hello.txt (tag v1), then two.txt on main; branch feature adds f.txt.
 * group/sub/nested (default branch trunk, no README), acme/empty (no commits).
 */
async function startGitServer(): Promise<GitServer> {
  const root = await mkdtemp(join(tmpdir(), "reposite-git-"));
  const base = join(root, "served");
  const work = join(root, "work");
  await mkdir(work, { recursive: true });
  git(work, "init", "--quiet", "--initial-branch=main");
  await writeFile(join(work, "README.md"), "# Hello\n\nA repository served by git daemon.\n");
  await writeFile(join(work, "hello.txt"), "hello\n");
  git(work, "add", ".");
  git(work, "commit", "--quiet", "-m", "first");
  git(work, "tag", "v1");
  await writeFile(join(work, "two.txt"), "two\n");
  git(work, "add", ".");
  git(work, "commit", "--quiet", "-m", "second");
  git(work, "checkout", "--quiet", "-b", "feature");
  await writeFile(join(work, "f.txt"), "feature\n");
  git(work, "add", ".");
  git(work, "commit", "--quiet", "-m", "feature");
  git(work, "checkout", "--quiet", "main");
  const commits = { main: git(work, "rev-parse", "main"), v1: git(work, "rev-parse", "v1^{commit}"), feature: git(work, "rev-parse", "feature") };
  await mkdir(join(base, "acme"), { recursive: true });
  git(root, "clone", "--quiet", "--bare", work, join(base, "acme", "hello.git"));

  const nested = join(root, "nested");
  await mkdir(nested);
  git(nested, "init", "--quiet", "--initial-branch=trunk");
  await writeFile(join(nested, "hello.txt"), "nested\n");
  git(nested, "add", ".");
  git(nested, "commit", "--quiet", "-m", "nested");
  await mkdir(join(base, "group", "sub"), { recursive: true });
  git(root, "clone", "--quiet", "--bare", nested, join(base, "group", "sub", "nested.git"));
  git(root, "init", "--quiet", "--bare", join(base, "acme", "empty.git"));

  const port = await freePort();
  const daemon = spawn(
    "git",
    ["daemon", "--reuseaddr", `--base-path=${base}`, "--export-all", `--port=${port}`, "--listen=127.0.0.1", base],
    { stdio: "ignore", env: GIT_ENV },
  );
  await waitForPort(port, daemon);
  return {
    port,
    root,
    commits,
    async close() {
      if (daemon.exitCode === null) {
        const exited = new Promise((resolve) => daemon.once("exit", resolve));
        daemon.kill();
        await exited;
      }
      await rm(root, { recursive: true, force: true });
    },
  };
}

function hostFor(server: GitServer, workDir: string): RepoHost {
  return createGitRepoHost({
    hosts: ["127.0.0.1", "git.example.com"],
    cloneUrls: { "127.0.0.1": `git://127.0.0.1:${server.port}` },
    workDir,
    timeoutMs: 20_000,
  });
}

repoHostContract("git CLI against a local git daemon", async () => {
  const server = await startGitServer();
  return {
    host: hostFor(server, join(server.root, "scratch")),
    link: `git://127.0.0.1:${server.port}/acme/hello.git`,
    missingLink: `git://127.0.0.1:${server.port}/acme/nope.git`,
    teardown: () => server.close(),
  };
});

describe("parseGitLink", () => {
  const hosts = new Set(["git.example.com"]);
  const parse = (link: string) => parseGitLink(link, hosts);

  it.each([
    ["https://git.example.com/group/repo", { owner: "group", name: "repo" }],
    ["https://git.example.com/group/sub/repo.git", { owner: "group/sub", name: "repo" }],
    ["git.example.com/group/sub/repo", { owner: "group/sub", name: "repo" }],
    ["https://GIT.example.com/Group/Repo/", { owner: "Group", name: "Repo" }],
    ["git@git.example.com:group/sub/repo.git", { owner: "group/sub", name: "repo" }],
    ["ssh://git@git.example.com:2222/group/repo.git", { owner: "group", name: "repo" }],
    ["git://git.example.com/group/repo.git", { owner: "group", name: "repo" }],
    ["git+ssh://git@git.example.com/group/repo", { owner: "group", name: "repo" }],
    ["https://ada@git.example.com/group/repo.git", { owner: "group", name: "repo" }],
  ])("understands %s", (link, expected) => {
    expect(parse(link)).toEqual({ host: "git", ...expected, url: `https://git.example.com/${expected.owner}/${expected.name}` });
  });

  it("keeps a web address's scheme and port, and reads GitLab's /-/tree and /-/blob pages", () => {
    expect(parse("http://git.example.com:8080/group/repo")).toMatchObject({ url: "http://git.example.com:8080/group/repo" });
    expect(parse("git.example.com:8443/group/repo")).toMatchObject({ url: "https://git.example.com:8443/group/repo" });
    expect(parse("https://git.example.com/group/repo/-/tree/feature/docs/guide")).toEqual({
      host: "git",
      owner: "group",
      name: "repo",
      url: "https://git.example.com/group/repo",
      ref: "feature",
      path: "docs/guide",
    });
    expect(parse("https://git.example.com/group/repo/-/merge_requests/4")).toMatchObject({ owner: "group", name: "repo" });
    expect(parse("https://git.example.com/group/repo/-/blob/v1/README.md")).toMatchObject({ ref: "v1", path: "README.md" });
  });

  it("refuses a /-/tree or /-/blob page inside .git or node_modules, as archives leave them out", () => {
    expect(parse("https://git.example.com/group/repo/-/tree/main/.git")).toBeNull();
    expect(parse("https://git.example.com/group/repo/-/tree/main/node_modules/x")).toBeNull();
    expect(parse("https://git.example.com/group/repo/-/blob/main/a/node_modules/b/index.js")).toBeNull();
    expect(parse("https://git.example.com/group/repo/-/blob/main/.gitignore")).toMatchObject({ path: ".gitignore" });
  });

  it.each([
    "https://github.com/unjs/h3",
    "https://gitlab.com/group/repo",
    "https://git.example.com/only-one",
    "https://git.example.com/group/../repo",
    "https://git.example.com/group/-repo",
    "https://user:secret@git.example.com/group/repo",
    "ftp://git.example.com/group/repo",
    "ssh://git@git.example.com/group/repo/-/tree/main",
    "file:///srv/git/group/repo.git",
    "not a link",
    "",
  ])("answers null for %s", (link) => {
    expect(parse(link)).toBeNull();
  });

  it("round-trips its canonical url", () => {
    const link = parse("git@git.example.com:group/sub/repo.git")!;
    expect(parse(link.url)).toEqual(link);
  });
});

describe("createGitRepoHost against a local git daemon", () => {
  let server: GitServer;
  let workDir: string;
  let host: RepoHost;
  const link = (path: string): RepoLink => {
    const parsed = host.parseLink(`git://127.0.0.1:${server.port}/${path}`);
    if (!parsed) throw new Error(`unparsable ${path}`);
    return parsed;
  };
  const files = async (stream: ReadableStream<Uint8Array>) => {
    const archive = new Uint8Array(await new Response(stream).arrayBuffer());
    expect([archive[0], archive[1]]).toEqual([0x1f, 0x8b]);
    return readTar(archive)
      .filter((entry) => entry.type === "file")
      .map((entry) => entry.path)
      .sort();
  };
  const scratchIsEmpty = async () => expect(await readdir(workDir).catch(() => [])).toEqual([]);

  beforeAll(async () => {
    server = await startGitServer();
    workDir = join(server.root, "scratch");
    host = hostFor(server, workDir);
  });
  afterAll(() => server.close());

  it("tells existence and the default branch from ls-remote; the rest comes from the path", async () => {
    expect(await host.getRepository(link("acme/hello.git"))).toEqual({
      owner: "acme",
      name: "hello",
      url: "https://127.0.0.1/acme/hello",
      private: false,
      description: "",
      topics: [],
      defaultBranch: "main",
    });
    expect(await host.getRepository(link("group/sub/nested"))).toMatchObject({ owner: "group/sub", name: "nested", defaultBranch: "trunk" });
    expect(await host.getRepository(link("acme/nope.git"))).toBeNull();
    // Clones go where cloneUrls says, whatever form the link had.
    expect(await host.getRepository(host.parseLink("https://127.0.0.1/acme/hello")!)).toMatchObject({ defaultBranch: "main" });
  });

  it("reads the README, and answers null without one, for an empty or a missing repository", async () => {
    expect(await host.getReadme(link("acme/hello.git"))).toBe("# Hello\n\nA repository served by git daemon.\n");
    expect(await host.getReadme(link("group/sub/nested.git"))).toBeNull();
    expect(await host.getReadme(link("acme/empty.git"))).toBeNull();
    expect(await host.getReadme(link("acme/nope.git"))).toBeNull();
    await scratchIsEmpty();
  });

  it("archives the default branch under <repo>-<sha7>/ and removes its clone afterwards", async () => {
    const paths = await files(await host.getSourceArchive(link("acme/hello.git")));
    const prefix = `hello-${server.commits.main!.slice(0, 7)}`;
    expect(paths).toEqual([`${prefix}/README.md`, `${prefix}/hello.txt`, `${prefix}/two.txt`]);
    await scratchIsEmpty();
  });

  it("archives a tag, a branch, a full commit id and a short one", async () => {
    const names = (paths: string[]) => paths.map((path) => path.split("/").slice(1).join("/"));
    expect(names(await files(await host.getSourceArchive(link("acme/hello.git"), "v1")))).toEqual(["README.md", "hello.txt"]);
    expect(await files(await host.getSourceArchive(link("acme/hello.git"), "feature"))).toContain(
      `hello-${server.commits.feature!.slice(0, 7)}/f.txt`,
    );
    expect(names(await files(await host.getSourceArchive(link("acme/hello.git"), server.commits.v1)))).toEqual(["README.md", "hello.txt"]);
    expect(names(await files(await host.getSourceArchive(link("acme/hello.git"), server.commits.feature!.slice(0, 10))))).toContain("f.txt");
    await scratchIsEmpty();
  });

  it("answers 404 ref_not_found for a missing ref or repository, and 422 for a ref git would misread", async () => {
    for (const [path, ref] of [
      ["acme/hello.git", "nope"],
      ["acme/hello.git", "0123456789012345678901234567890123456789"],
      ["acme/hello.git", "abcdef1"],
      ["acme/nope.git", undefined],
      ["acme/empty.git", undefined],
    ] as const) {
      const error = await failure(host.getSourceArchive(link(path), ref));
      expect([error.status, error.code], `${path} @ ${ref}`).toEqual([404, "ref_not_found"]);
    }
    for (const ref of ["--upload-pack=touch /tmp/x", "a..b", "main@{1}", "bad ref", "x.lock"]) {
      expect((await failure(host.getSourceArchive(link("acme/hello.git"), ref))).code).toBe("invalid_ref");
    }
    await scratchIsEmpty();
  });

  it("cleans up when the reader gives up early", async () => {
    const stream = await host.getSourceArchive(link("acme/hello.git"));
    await stream.cancel();
    for (let i = 0; i < 50 && (await readdir(workDir)).length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    await scratchIsEmpty();
  });

  it("answers 502 repohost_unavailable when the server cannot be reached", async () => {
    const closed = createGitRepoHost({ hosts: ["127.0.0.1"], cloneUrls: { "127.0.0.1": `git://127.0.0.1:${await freePort()}` }, workDir });
    const unreachable = closed.parseLink("git://127.0.0.1/acme/hello.git")!;
    const error = await failure(closed.getRepository(unreachable));
    expect([error.status, error.code]).toEqual([502, "repohost_unavailable"]);
    expect((await failure(closed.getReadme(unreachable))).code).toBe("repohost_unavailable");
    expect((await failure(closed.getSourceArchive(unreachable))).code).toBe("repohost_unavailable");
  });

  it("says so when the git binary is missing", async () => {
    const missing = createGitRepoHost({ hosts: ["127.0.0.1"], git: "/nonexistent/git", workDir });
    const error = await failure(missing.getRepository(missing.parseLink("https://127.0.0.1/acme/hello")!));
    expect(error.message).toContain("/nonexistent/git");
  });
});
