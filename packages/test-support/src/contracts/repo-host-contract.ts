import type { RepoHost, RepoLink } from "@reposite/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readTar } from "../tar.js";

export interface RepoHostContractSetup {
  host: RepoHost;
  /** A link to an existing public repository with a README and a file `hello.txt` at its root. */
  link: string;
  /** A well-formed link to a repository that does not exist. */
  missingLink: string;
  teardown(): Promise<void>;
}

/** What every RepoHost must do; each implementation's test file calls this once. */
export function repoHostContract(name: string, setup: () => Promise<RepoHostContractSetup>): void {
  describe(`RepoHost contract: ${name}`, () => {
    let ctx: RepoHostContractSetup | undefined;
    const env = (): RepoHostContractSetup => {
      if (!ctx) throw new Error("[test-support] [repo-host-contract] setup did not finish");
      return ctx;
    };
    const parse = (link: string): RepoLink => {
      const parsed = env().host.parseLink(link);
      if (!parsed) throw new Error(`[test-support] [repo-host-contract] parseLink(${JSON.stringify(link)}) answered null`);
      return parsed;
    };

    beforeAll(async () => {
      ctx = await setup();
    });
    afterAll(async () => {
      await ctx?.teardown();
    });

    it("has an id", () => {
      expect(env().host.id).toMatch(/^[a-z][a-z0-9-]*$/);
    });

    it("parses the link into owner, name and a canonical url", () => {
      const link = parse(env().link);
      expect(link.host).toBe(env().host.id);
      expect(link.owner).not.toBe("");
      expect(link.name).not.toBe("");
      // A web address, or a file: URL for repositories on the server's own machine.
      expect(link.url).toMatch(/^(?:https?:\/\/|file:\/\/\/)/);
      expect(env().host.parseLink(link.url)).toMatchObject({ owner: link.owner, name: link.name, url: link.url });
    });

    it("answers null for a link it does not understand", () => {
      expect(env().host.parseLink("not a link")).toBeNull();
      expect(env().host.parseLink("")).toBeNull();
    });

    it("tells the facts of an existing public repository", async () => {
      const link = parse(env().link);
      const facts = await env().host.getRepository(link);
      expect(facts).not.toBeNull();
      expect(facts!.owner.toLowerCase()).toBe(link.owner.toLowerCase());
      expect(facts!.name.toLowerCase()).toBe(link.name.toLowerCase());
      expect(facts!.private).toBe(false);
      expect(typeof facts!.url).toBe("string");
      expect(typeof facts!.description).toBe("string");
      expect(Array.isArray(facts!.topics)).toBe(true);
      expect(facts!.defaultBranch).not.toBe("");
    });

    it("answers null for a repository that does not exist", async () => {
      expect(await env().host.getRepository(parse(env().missingLink))).toBeNull();
    });

    it("reads the README as text", async () => {
      const readme = await env().host.getReadme(parse(env().link));
      expect(typeof readme).toBe("string");
      expect(readme!.length).toBeGreaterThan(0);
    });

    it("streams the source as a gzipped tarball that contains hello.txt", async () => {
      const stream = await env().host.getSourceArchive(parse(env().link));
      const archive = new Uint8Array(await new Response(stream).arrayBuffer());
      expect([archive[0], archive[1]]).toEqual([0x1f, 0x8b]);
      const files = readTar(archive).filter((entry) => entry.type === "file");
      // Hosts put everything under one top-level folder; its name is theirs to choose.
      const hello = files.find((entry) => entry.path.split("/").slice(-1)[0] === "hello.txt" && entry.path.split("/").length <= 2);
      expect(hello, `hello.txt among ${files.map((f) => f.path).join(", ")}`).toBeDefined();
    });
  });
}
