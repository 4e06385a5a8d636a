import { Readable } from "node:stream";
import { createTarball } from "@reposite/test-support";
import { describe, expect, it } from "vitest";
import { sourceTreeFromArchive } from "../../src/repo-analysis/source-tree-from-archive.js";

const streamOf = (bytes: Buffer) => Readable.toWeb(Readable.from([bytes])) as ReadableStream<Uint8Array>;

describe("source tree from a code host's tarball", () => {
  it("strips the top folder, keeps small text files, lists large and binary ones without content", async () => {
    const archive = createTarball(
      {
        "package.json": '{"name":"x"}',
        "src/index.ts": "export {}",
        "public/logo.png": "\u0000PNG",
        "big.txt": "x".repeat(2000),
        "node_modules/left-pad/index.js": "module.exports = 1",
      },
      "acme-widget-abc1234",
    );
    const tree = await sourceTreeFromArchive(streamOf(archive), { maxTotalBytes: 1_000_000, maxFileBytes: 1000, maxFiles: 100 });
    expect(tree.paths()).toEqual(["big.txt", "package.json", "public/logo.png", "src/index.ts"]);
    expect(tree.read("package.json")).toBe('{"name":"x"}');
    expect(tree.read("./src/index.ts")).toBe("export {}");
    expect(tree.has("big.txt")).toBe(true);
    expect(tree.read("big.txt")).toBeNull();
    expect(tree.read("public/logo.png")).toBeNull();
    expect(tree.has("node_modules/left-pad/index.js")).toBe(false);
  });

  it("refuses a repository larger than the limit with 422 repo_too_large", async () => {
    const archive = createTarball({ "a.txt": "a".repeat(600), "b.txt": "b".repeat(600) }, "acme-big-abc1234");
    await expect(
      sourceTreeFromArchive(streamOf(archive), { maxTotalBytes: 1000, maxFileBytes: 1000, maxFiles: 100 }),
    ).rejects.toMatchObject({ status: 422, code: "repo_too_large" });
  });
});
