import { describe, expect, it } from "vitest";
import { repoCheckQuerySchema, setupInputSchema } from "../src/index.js";

describe("root_dir (the folder of one app of a monorepo)", () => {
  it("is a folder inside the repository, normalised; blank or . is the root (null)", () => {
    expect(setupInputSchema.parse({ root_dir: "./apps//web/" })).toEqual({ root_dir: "apps/web" });
    expect(setupInputSchema.parse({ root_dir: " . " })).toEqual({ root_dir: null });
    expect(setupInputSchema.parse({ root_dir: null })).toEqual({ root_dir: null });
  });

  it.each([
    ["../other", "must stay inside the repository (no ..)"],
    ["/apps/web", "must be relative to the repository root, such as apps/web"],
    ["apps\\web", "must not contain control characters or backslashes"],
    [42, "must be a folder of the repository, such as apps/web"],
  ])("refuses %j: %s", (root_dir, message) => {
    const result = setupInputSchema.safeParse({ root_dir });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe(message);
  });

  it("the repository check takes it too", () => {
    expect(repoCheckQuerySchema.parse({ root_dir: "apps/web" })).toEqual({ root_dir: "apps/web" });
    expect(repoCheckQuerySchema.safeParse({ root_dir: "../x" }).success).toBe(false);
  });
});
