import { describe, expect, it } from "vitest";
import {
  createProjectSchema,
  deleteProjectQuerySchema,
  projectDetailSchema,
  projectSchema,
  projectsDelete,
  projectsGet,
  updateProjectSchema,
} from "../src/index.js";

const firstIssue = (result: { success: boolean; error?: { issues: { path: PropertyKey[]; code: string; message: string }[] } }) =>
  result.error?.issues[0];

describe("project input", () => {
  it("refuses a PATCH field that is not a setting, naming it (a typo is not dropped silently)", () => {
    const result = updateProjectSchema.safeParse({ name: "Rocket", colour_mode: "Dark mode" });
    expect(result.success).toBe(false);
    expect(firstIssue(result)).toMatchObject({ code: "unrecognized_keys" });
    expect(updateProjectSchema.safeParse({ name: "Rocket" }).success).toBe(true);
  });

  it("takes an empty PATCH and trims what it keeps", () => {
    expect(updateProjectSchema.parse({})).toEqual({});
    expect(updateProjectSchema.parse({ name: "  Rocket  ", ga_id: " G-ABC1234 " })).toEqual({ name: "Rocket", ga_id: "G-ABC1234" });
  });

  it.each([
    ["logo_url", "javascript:alert(1)"],
    ["logo_url", "ftp://example.com/logo.png"],
    ["ga_id", "GTM-12345"],
    ["color_mode", "Sepia"],
    ["auth_redirect_to_app", "yes"],
    ["name", "   "],
    ["description", "x".repeat(501)],
  ])("refuses %s %j, naming the field", (field, value) => {
    expect(firstIssue(updateProjectSchema.safeParse({ [field]: value }))?.path).toEqual([field]);
  });

  it('takes "" to clear logo_url, ga_id and color_mode', () => {
    expect(updateProjectSchema.parse({ logo_url: "", ga_id: "", color_mode: "" })).toEqual({ logo_url: "", ga_id: "", color_mode: "" });
  });

  it("needs repohost_url to create, and refuses unknown fields", () => {
    expect(firstIssue(createProjectSchema.safeParse({}))).toMatchObject({ path: ["repohost_url"], message: expect.stringContaining("required") });
    expect(createProjectSchema.safeParse({ repohost_url: "https://github.com/a/b", type: "saas" }).success).toBe(false);
    expect(createProjectSchema.parse({ repohost_url: " https://github.com/a/b " })).toEqual({ repohost_url: "https://github.com/a/b" });
  });

  it("reads purge as a flag: 1 or true purges, 0, false or nothing does not, anything else is refused", () => {
    expect(deleteProjectQuerySchema.parse({ purge: "1" })).toEqual({ purge: true });
    expect(deleteProjectQuerySchema.parse({ purge: "true" })).toEqual({ purge: true });
    expect(deleteProjectQuerySchema.parse({ purge: "0" })).toEqual({ purge: false });
    expect(deleteProjectQuerySchema.parse({})).toEqual({ purge: false });
    expect(firstIssue(deleteProjectQuerySchema.safeParse({ purge: "maybe" }))?.path).toEqual(["purge"]);
    expect(deleteProjectQuerySchema.safeParse({ purge: ["1", "1"] }).success).toBe(false);
  });
});

describe("project answers", () => {
  const project = {
    id: "site_1",
    slug: null,
    url: null,
    name: "Rocket",
    description: "",
    ga_id: "",
    design: "aurora",
    color_mode: "",
    logo_url: "",
    auth_redirect_to_app: false,
    repohost_url: "https://github.com/acme/rocket",
    private: false,
    created_at: "2026-01-01 00:00:00",
    updated_at: "2026-01-01 00:00:00",
    visits: 0,
    app_status: null,
  };

  it("describe every field a project has, and nothing of the record behind it", () => {
    expect(projectSchema.safeParse(project).success).toBe(true);
    expect(projectSchema.safeParse({ ...project, owner_id: "acct_1" }).success).toBe(false);
    expect(projectSchema.safeParse({ ...project, logo_image: "data:image/png;base64,AA" }).success).toBe(false);
    const { visits: _visits, ...withoutVisits } = project;
    expect(projectSchema.safeParse(withoutVisits).success).toBe(false);
  });

  it("a single read adds the plan and the app summary, both nullable", () => {
    expect(projectDetailSchema.safeParse({ ...project, wizard: null, deployment: null }).success).toBe(true);
    const full = { ...project, wizard: { mode: "website", pages: ["faq"], community: true }, deployment: { status: "running", url: "https://x/app/" }, app_status: "running" };
    expect(projectDetailSchema.safeParse(full).success).toBe(true);
    expect(projectDetailSchema.safeParse({ ...full, deployment: { status: "sleeping", url: "https://x/app/" } }).success).toBe(false);
    expect(projectDetailSchema.safeParse({ ...full, wizard: { mode: "website", pages: ["template"], community: true } }).success).toBe(false);
    expect(projectDetailSchema.safeParse(project).success).toBe(false);
  });

  it("path ids are plain strings, so a malformed one reaches the service and answers as a missing project", () => {
    expect(projectsGet.params.safeParse({ site_id: "..%2F.." }).success).toBe(true);
    expect("schema" in projectsDelete.answers[204]).toBe(false);
  });
});
