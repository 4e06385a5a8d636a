import { describe, expect, it } from "vitest";
import { publishPageSchema, publishResultSchema, publishSchema, setSlugSchema, slugCheckQuerySchema, slugCheckSchema } from "../src/index.js";

describe("publishing schemas", () => {
  it("an available slug carries no reason, an unavailable one always does", () => {
    expect(slugCheckSchema.safeParse({ available: true }).success).toBe(true);
    expect(slugCheckSchema.safeParse({ available: false, reason: "taken" }).success).toBe(true);
    expect(slugCheckSchema.safeParse({ available: false }).success).toBe(false);
    expect(slugCheckSchema.safeParse({ available: true, reason: "taken" }).success).toBe(false);
    expect(slugCheckSchema.safeParse({ available: false, reason: "too_short" }).success).toBe(false);
  });

  it("the check's query never fails: a missing or repeated slug is simply no slug (answered `invalid`)", () => {
    expect(slugCheckQuerySchema.parse({ slug: "rocket" })).toEqual({ slug: "rocket" });
    expect(slugCheckQuerySchema.parse({})).toEqual({});
    expect(slugCheckQuerySchema.parse({ slug: ["a", "b"] })).toEqual({ slug: undefined });
  });

  it("bodies refuse unknown fields and wrong types, naming the field", () => {
    expect(publishSchema.parse({})).toEqual({});
    expect(publishSchema.safeParse({ discourse: "yes" }).error?.issues[0]?.path).toEqual(["discourse"]);
    expect(publishSchema.safeParse({ discource: true }).success).toBe(false);
    expect(setSlugSchema.safeParse({}).error?.issues[0]?.message).toBe("slug is required");
    expect(publishPageSchema.safeParse({ kind: "pricing" }).error?.issues[0]?.path).toEqual(["kind"]);
    expect(publishPageSchema.parse({ kind: "faq" })).toEqual({ kind: "faq" });
  });

  it("a publish answer lists page kinds only", () => {
    expect(publishResultSchema.safeParse({ url: "https://a.sites.test", pages: ["template", "faq"], warnings: [] }).success).toBe(true);
    expect(publishResultSchema.safeParse({ url: "https://a.sites.test", pages: ["/faq"], warnings: [] }).success).toBe(false);
  });

  it("a publish answer always carries its warnings, each a known code with a message", () => {
    const warning = { code: "app_not_deployed", message: "No app is deployed at /app/." };
    expect(publishResultSchema.safeParse({ url: "https://a.sites.test", pages: ["template"], warnings: [warning] }).success).toBe(true);
    expect(publishResultSchema.safeParse({ url: "https://a.sites.test", pages: ["template"] }).success).toBe(false);
    expect(publishResultSchema.safeParse({ url: "https://a.sites.test", pages: ["template"], warnings: [{ ...warning, code: "other" }] }).success).toBe(false);
  });
});
