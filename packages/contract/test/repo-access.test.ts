import { describe, expect, it } from "vitest";
import { autoBuildSchema, repoCallbackQuerySchema, repoCheckQuerySchema, repoCheckSchema, repoConnectSchema, repoLookupQuerySchema } from "../src/index.js";

describe("repository access schemas", () => {
  it("a lookup needs url; connecting needs repo and nothing else", () => {
    expect(repoLookupQuerySchema.safeParse({}).error?.issues[0]).toMatchObject({ path: ["url"], message: expect.stringContaining("required") });
    expect(repoConnectSchema.parse({ repo: " https://github.com/a/b " })).toEqual({ repo: "https://github.com/a/b" });
    expect(repoConnectSchema.safeParse({ repo: "https://github.com/a/b", scope: "repo" }).success).toBe(false);
  });

  it("the callback's query never fails: the page answers for anything the browser brings", () => {
    expect(repoCallbackQuerySchema.parse({ code: "c", state: "s" })).toEqual({ code: "c", state: "s" });
    expect(repoCallbackQuerySchema.parse({ code: ["c", "d"], state: 5, extra: "x" })).toEqual({ code: undefined, state: undefined });
  });

  it.each([
    [{ path: "../etc/passwd" }, "path"],
    [{ path: "docker/../../x" }, "path"],
    [{ ref: "main branch" }, "ref"],
    [{ ref: "a:b" }, "ref"],
    [{ ref: "" }, "ref"],
  ])("a repository check refuses %j, naming %s", (query, field) => {
    expect(repoCheckQuerySchema.safeParse(query).error?.issues[0]?.path).toEqual([field]);
  });

  it("a check takes a ref and a path inside the repository", () => {
    expect(repoCheckQuerySchema.parse({ ref: " v1.2.0 ", path: "docker/Dockerfile.prod" })).toEqual({ ref: "v1.2.0", path: "docker/Dockerfile.prod" });
  });

  it("an automatic build is either found, with its commands, or not, with a reason", () => {
    const found = { found: true, name: "Express", install: "npm ci", build: null, start: "node server.js", dockerfile: "FROM node", warnings: [] };
    expect(autoBuildSchema.safeParse(found).success).toBe(true);
    expect(autoBuildSchema.safeParse({ found: false, reason: "No package.json" }).success).toBe(true);
    expect(autoBuildSchema.safeParse({ found: false }).success).toBe(false);
    expect(autoBuildSchema.safeParse({ ...found, reason: "x" }).success).toBe(false);
    const check = { dockerfile: false, analysis: null, auto: found, setup: { vars: [], notes: [] } };
    expect(repoCheckSchema.safeParse(check).success).toBe(true);
    expect(repoCheckSchema.safeParse({ ...check, setup: { vars: [{ name: "A", required: true, description: "", input: "typed", value: "" }], notes: [] } }).success).toBe(false);
  });
});
