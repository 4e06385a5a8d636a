import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { siteHostLinks } from "../../src/edge/site-host-links.js";

describe("the edge's links from site hosts to their files", () => {
  let edge: string;
  const sites = () => join(edge, "sites");
  const hosts = () => join(edge, "hosts");
  beforeEach(async () => {
    edge = await mkdtemp(join(tmpdir(), "reposite-host-links-"));
    for (const slug of ["lumen", "ledger"]) {
      await mkdir(join(sites(), slug, "v1"), { recursive: true });
      await writeFile(join(sites(), slug, "v1", "index.html"), slug);
      await symlink("v1", join(sites(), slug, "current"));
    }
  });
  afterEach(() => rm(edge, { recursive: true, force: true }));

  it("links each host to its site's folder, moves a domain to another site, and drops hosts no longer routed", async () => {
    const links = siteHostLinks(sites());
    await links.sync([["lumen.sites.test", "lumen"], ["lumen.dev", "lumen"], ["ledger.sites.test", "ledger"]]);
    expect((await readdir(hosts())).sort()).toEqual(["ledger.sites.test", "lumen.dev", "lumen.sites.test"]);
    // nginx reads through the link, relative to the hosts folder: it holds in a container at the same path too.
    expect(await readFile(join(hosts(), "lumen.dev", "current", "index.html"), "utf8")).toBe("lumen");
    expect(await readlink(join(hosts(), "lumen.dev"))).toBe(join("..", "sites", "lumen"));
    expect(links.slugOf("lumen.dev")).toBe("lumen");

    await links.sync([["lumen.sites.test", "lumen"], ["lumen.dev", "ledger"]]);
    expect(await readFile(join(hosts(), "lumen.dev", "current", "index.html"), "utf8")).toBe("ledger");
    expect(links.slugOf("lumen.dev")).toBe("ledger");
    expect((await readdir(hosts())).sort()).toEqual(["lumen.dev", "lumen.sites.test"]);
    expect(links.slugOf("ledger.sites.test")).toBeUndefined();
  });

  it("after a restart, keeps the links that are right and clears what a kill left half-made", async () => {
    await siteHostLinks(sites()).sync([["lumen.sites.test", "lumen"], ["old.sites.test", "ledger"]]);
    // A kill between making a temporary link and renaming it over the host's.
    await symlink(join("..", "sites", "ledger"), join(hosts(), ".lumen.dev.0a1b2c3d"));
    const before = await lstat(join(hosts(), "lumen.sites.test"));

    const restarted = siteHostLinks(sites());
    await restarted.sync([["lumen.sites.test", "lumen"], ["lumen.dev", "lumen"]]);
    expect((await readdir(hosts())).sort()).toEqual(["lumen.dev", "lumen.sites.test"]);
    // The right link was left as it was, not made again.
    expect((await lstat(join(hosts(), "lumen.sites.test"))).ino).toBe(before.ino);
    expect(restarted.slugOf("lumen.sites.test")).toBe("lumen");
  });
});
