import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { readTar, repoHostContract, failure, git } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RepoHost, RepoLink } from "../src/ports/repo-host.js";
import { createLocalRepoHost } from "../src/repo-host/local-repo-host.js";

/**
 * <root>/allowed/plain: a plain folder (README, hello.txt, node_modules, .git-like folder, a link out);
 * <root>/allowed/checkout: a git checkout (main: hello.txt v1, tag v1; then hello.txt v2 and an
 * uncommitted file); <root>/outside/secret.txt: never readable.
 */
async function makeFolders() {
  const root = await mkdtemp(join(tmpdir(), "reposite-local-"));
  const allowed = join(root, "allowed");
  const plain = join(allowed, "plain");
  const checkout = join(allowed, "checkout");
  const outside = join(root, "outside");
  await mkdir(join(plain, "node_modules", "left-pad"), { recursive: true });
  await mkdir(join(plain, ".git"), { recursive: true });
  await mkdir(join(plain, "src"), { recursive: true });
  await mkdir(outside, { recursive: true });
  await writeFile(join(outside, "secret.txt"), "do not read\n");
  await writeFile(join(outside, "README.md"), "# Outside\n\nSecret readme.\n");
  await writeFile(join(plain, "README.md"), "# Plain\n\nA folder that is not a git checkout, read as it is.\n");
  await writeFile(join(plain, "hello.txt"), "hello\n");
  await writeFile(join(plain, "src", "index.js"), "export {};\n");
  await writeFile(join(plain, "node_modules", "left-pad", "index.js"), "module.exports = 1;\n");
  await writeFile(join(plain, ".git", "config"), "[core]\n");
  await symlink(join(outside, "secret.txt"), join(plain, "leak.txt"));
  await symlink(outside, join(allowed, "escape"));

  await mkdir(checkout, { recursive: true });
  git(checkout, "init", "--quiet", "--initial-branch=trunk");
  await writeFile(join(checkout, "package.json"), JSON.stringify({ name: "rocket", description: "Launch rockets from a folder", keywords: ["cli", 3] }));
  await writeFile(join(checkout, "README.md"), "# Rocket\n\nThe README's own words.\n");
  await writeFile(join(checkout, "hello.txt"), "v1\n");
  git(checkout, "add", ".");
  git(checkout, "commit", "--quiet", "-m", "one");
  git(checkout, "tag", "v1");
  await writeFile(join(checkout, "hello.txt"), "v2\n");
  git(checkout, "commit", "--quiet", "-am", "two");
  await writeFile(join(checkout, "uncommitted.txt"), "not in the archive\n");
  return { root, allowed, plain, checkout, outside };
}

let folders: Awaited<ReturnType<typeof makeFolders>>;
let host: RepoHost;

beforeAll(async () => {
  folders = await makeFolders();
  host = createLocalRepoHost({ folders: [folders.allowed] });
});
afterAll(() => rm(folders.root, { recursive: true, force: true }));

repoHostContract("local folder (plain)", async () => {
  const made = await makeFolders();
  return {
    host: createLocalRepoHost({ folders: [made.allowed] }),
    link: pathToFileURL(made.plain).href,
    missingLink: pathToFileURL(join(made.allowed, "nope")).href,
    teardown: () => rm(made.root, { recursive: true, force: true }),
  };
});

repoHostContract("local folder (git checkout, named by its path)", async () => {
  const made = await makeFolders();
  return {
    // The folder itself is the one allowed, as REPOSITE_LOCAL_REPOS=/path/to/checkout does.
    host: createLocalRepoHost({ folders: [made.checkout] }),
    link: made.checkout,
    missingLink: join(made.checkout, "nope"),
    teardown: () => rm(made.root, { recursive: true, force: true }),
  };
});

const link = (text: string): RepoLink => {
  const parsed = host.parseLink(text);
  if (!parsed) throw new Error(`${text} was not understood`);
  return parsed;
};

async function files(stream: ReadableStream<Uint8Array>): Promise<Map<string, string>> {
  const archive = new Uint8Array(await new Response(stream).arrayBuffer());
  return new Map(
    readTar(archive)
      .filter((entry) => entry.type === "file")
      .map((entry) => [entry.path.split("/").slice(1).join("/"), Buffer.from(entry.content).toString("utf8")]),
  );
}

describe("createLocalRepoHost", () => {
  it("reads only folders the operator allowed: paths are canonicalised before the check", () => {
    const canonical = pathToFileURL(folders.plain).href;
    for (const form of [folders.plain, `${folders.plain}/`, canonical, `${folders.allowed}/checkout/../plain`, ` ${canonical} `]) {
      expect(host.parseLink(form), form).toEqual({ host: "local", owner: "local", name: "plain", url: canonical });
    }
    for (const refused of [
      folders.outside,
      join(folders.outside, "secret.txt"),
      `${folders.allowed}/../outside`,
      join(folders.allowed, "escape"), // a symbolic link out of the allowed folder
      pathToFileURL(join(folders.allowed, "escape", "x")).href,
      "/etc",
      "file:///etc/passwd",
      "file://other-machine/share/repo",
      "plain",
      "./plain",
      "~/plain",
      `${folders.plain}\u0000`,
      "https://github.com/unjs/h3",
    ]) {
      expect(host.parseLink(refused), refused).toBeNull();
    }
  });

  it("refuses to start with a folder that is not absolute or does not exist", () => {
    expect(() => createLocalRepoHost({ folders: ["relative/path"] })).toThrow(/absolute/);
    expect(() => createLocalRepoHost({ folders: [join(folders.root, "missing")] })).toThrow(/not a folder/);
  });

  it("tells a plain folder's facts: name from the folder, title and description from the README", async () => {
    expect(await host.getRepository(link(folders.plain))).toEqual({
      owner: "local",
      name: "plain",
      title: "Plain",
      url: pathToFileURL(folders.plain).href,
      private: false,
      description: "A folder that is not a git checkout, read as it is.",
      topics: [],
      defaultBranch: "HEAD",
    });
  });

  it("tells a checkout's facts: description and topics from package.json, its branch from git", async () => {
    expect(await host.getRepository(link(folders.checkout))).toMatchObject({
      name: "checkout",
      title: "Rocket",
      description: "Launch rockets from a folder",
      topics: ["cli"],
      defaultBranch: "trunk",
    });
    expect(await host.getReadme(link(folders.checkout))).toContain("The README's own words.");
  });

  it("gives a folder without a README title no title: its project is named after the folder", async () => {
    const untitled = join(folders.allowed, "untitled");
    await mkdir(untitled, { recursive: true });
    await writeFile(join(untitled, "README.md"), "Just words, no heading.\n");
    const facts = await host.getRepository(link(untitled));
    expect(facts).toMatchObject({ name: "untitled" });
    expect(facts).not.toHaveProperty("title");
  });

  it("archives a plain folder's working tree without node_modules, .git or links that lead out", async () => {
    const tree = await files(await host.getSourceArchive(link(folders.plain)));
    expect([...tree.keys()].sort()).toEqual(["README.md", "hello.txt", "src/index.js"]);
    expect(tree.get("hello.txt")).toBe("hello\n");
    expect((await failure(host.getSourceArchive(link(folders.plain), "main"))).code).toBe("ref_not_found");
  });

  it("archives a checkout with git archive at a ref: HEAD by default, tags and branches by name", async () => {
    const head = await files(await host.getSourceArchive(link(folders.checkout)));
    expect(head.get("hello.txt")).toBe("v2\n");
    expect(head.has("uncommitted.txt")).toBe(false);
    expect((await files(await host.getSourceArchive(link(folders.checkout), "v1"))).get("hello.txt")).toBe("v1\n");
    expect((await files(await host.getSourceArchive(link(folders.checkout), "trunk"))).get("hello.txt")).toBe("v2\n");
    expect(await failure(host.getSourceArchive(link(folders.checkout), "nope"))).toMatchObject({ status: 404, code: "ref_not_found" });
    expect(await failure(host.getSourceArchive(link(folders.checkout), "--upload-pack=x"))).toMatchObject({ status: 422, code: "invalid_ref" });
  });

  it("does not read a README that is a link out of the repository", async () => {
    const linked = join(folders.allowed, "linked-readme");
    await mkdir(linked, { recursive: true });
    await symlink(join(folders.outside, "README.md"), join(linked, "README.md"));
    expect(await host.getReadme(link(linked))).toBeNull();
    expect((await host.getRepository(link(linked)))?.description).toBe("");
  });

  it("never reads the server's own data directory, even inside an allowed folder", async () => {
    const data = join(folders.plain, ".data");
    await mkdir(join(data, "records"), { recursive: true });
    await writeFile(join(data, "secret.key"), "k\n");
    const guarded = createLocalRepoHost({ folders: [folders.allowed], hidden: [data] });
    expect(guarded.parseLink(data)).toBeNull();
    expect(guarded.parseLink(join(data, "records"))).toBeNull();
    const tree = await files(await guarded.getSourceArchive(guarded.parseLink(folders.plain)!));
    expect([...tree.keys()].sort()).toEqual(["README.md", "hello.txt", "src/index.js"]);
    await rm(data, { recursive: true });
  });

  it("refuses a link to a .git or node_modules folder, or a folder inside one, like the server's data directory", async () => {
    await mkdir(join(folders.plain, "node_modules", "x"), { recursive: true });
    await writeFile(join(folders.plain, "node_modules", "x", "index.js"), "module.exports = 1;\n");
    expect(host.parseLink(join(folders.checkout, ".git"))).toBeNull();
    expect(host.parseLink(join(folders.checkout, ".git", "refs"))).toBeNull();
    expect(host.parseLink(pathToFileURL(join(folders.plain, "node_modules")).href)).toBeNull();
    expect(host.parseLink(join(folders.plain, "node_modules", "x"))).toBeNull();
    expect(host.parseLink(join(folders.plain, "node_modules", "x", "..", ".."))).toMatchObject({ url: pathToFileURL(folders.plain).href });
    await rm(join(folders.plain, "node_modules"), { recursive: true });
  });

  it("reads a checkout as a plain folder on a machine without git", async () => {
    const noGit = createLocalRepoHost({ folders: [folders.allowed], git: join(folders.root, "no-such-git") });
    const checkout = noGit.parseLink(folders.checkout)!;
    expect(await noGit.getRepository(checkout)).toMatchObject({ name: "checkout", defaultBranch: "HEAD" });
    const tree = await files(await noGit.getSourceArchive(checkout));
    expect(tree.get("uncommitted.txt")).toBe("not in the archive\n");
    expect([...tree.keys()].some((path) => path.startsWith(".git/"))).toBe(false);
  });

  it("answers null for a missing folder or a file, and names the allowed folder as the example", async () => {
    expect(await host.getRepository(link(join(folders.allowed, "missing")))).toBeNull();
    expect(await host.getRepository(link(join(folders.plain, "hello.txt")))).toBeNull();
    expect(host.exampleLink).toBe(pathToFileURL(folders.allowed).href);
  });
});
