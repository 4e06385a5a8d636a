import { createClient, type PageKind } from "@reposite/sdk";
import { getWithHost } from "@reposite/test-support";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startRepositeUnderTest, textOf, type McpSession, type RepositeUnderTest } from "./reposite-under-test.js";

// The built `reposite-mcp` bin, spawned by the MCP SDK's own client over stdio, against a real
// Reposite server on a socket (a loopback fake GitHub behind it).
let reposite: RepositeUnderTest;
let mcp: McpSession;
let token: string;

beforeAll(async () => {
  reposite = await startRepositeUnderTest([
    { owner: "acme", name: "notebook", description: "Notes for data science", topics: ["jupyter"], readme: "# Notebook\n\nNotes that run.\n\n## FAQ\n\n### Does it run offline?\n\nYes, every note runs on your machine.\n" },
  ]);
  token = await reposite.tokenFor("ada@example.com");
  mcp = await reposite.connect({ REPOSITE_URL: reposite.server.url, REPOSITE_TOKEN: token });
});
afterAll(async () => {
  await reposite?.close();
});

it("lists the journeys as tools, each with a description and an input schema", async () => {
  const { tools } = await mcp.client.listTools();
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  expect([...byName.keys()].sort()).toEqual(
    ["create_project", "deploy_app", "generate_site", "get_status", "list_projects", "publish_site", "read_diagnosis", "read_logs", "set_env"].sort(),
  );
  for (const tool of tools) {
    expect(tool.description, tool.name).toBeTruthy();
    expect(tool.inputSchema.type, tool.name).toBe("object");
  }
  expect(byName.get("create_project")!.inputSchema).toMatchObject({ properties: { repository: { type: "string" } }, required: ["repository"] });
  expect(byName.get("generate_site")!.inputSchema).toMatchObject({
    properties: { mode: { enum: ["saas", "website", "landing"] }, pages: { type: "array" } },
    required: ["site_id"],
  });
  expect(byName.get("set_env")!.inputSchema).toMatchObject({
    properties: { set: { type: "object" }, unset: { type: "array", items: { type: "string" } } },
    required: ["site_id"],
  });
  expect(byName.get("read_logs")!.annotations).toMatchObject({ readOnlyHint: true });
});

it("creates a project, generates its pages to the end of the chain, publishes, and the page is live", async () => {
  const created = await mcp.call("create_project", { repository: "https://github.com/acme/notebook", name: "Notebook" });
  expect(created.isError).toBeFalsy();
  const project = (created.structuredContent as { project: { id: string; name: string; repository: string } }).project;
  expect(project).toMatchObject({ name: "Notebook", repository: "https://github.com/acme/notebook" });
  expect(textOf(created)).toContain(project.id);

  const progress: string[] = [];
  const generated = (await mcp.client.callTool(
    { name: "generate_site", arguments: { site_id: project.id, mode: "website", pages: ["about", "faq"] } },
    undefined,
    { onprogress: (update) => void progress.push(update.message ?? "") },
  )) as Awaited<ReturnType<McpSession["call"]>>;
  // One report as each page starts (the last may cross the answer, and the client then drops it).
  expect(progress.slice(0, 2)).toEqual(["Writing template (1 of 3).", "Writing about (2 of 3)."]);
  expect(generated.isError, textOf(generated)).toBeFalsy();
  const pages = (generated.structuredContent as { pages: { kind: string; status: string; version_id: string }[] }).pages;
  expect(pages.map((page) => [page.kind, page.status])).toEqual([
    ["template", "done"],
    ["about", "done"],
    ["faq", "done"],
  ]);
  // Each page names the current version of that kind.
  const api = createClient({ baseURL: reposite.server.url, token });
  for (const page of pages) {
    const versions = await api.versions.list(project.id, { kind: page.kind as PageKind });
    expect(versions.find((version) => version.current)?.id, page.kind).toBe(page.version_id);
  }

  const published = await mcp.call("publish_site", { site_id: project.id, slug: "notebook-mcp" });
  expect(published.isError, textOf(published)).toBeFalsy();
  expect(published.structuredContent).toEqual({ site_id: project.id, url: "http://notebook-mcp.sites.test", pages: ["template", "about", "faq"], warnings: [] });

  const home = await getWithHost(`${reposite.server.url}/`, "notebook-mcp.sites.test");
  expect(home.status).toBe(200);
  expect(home.body).toContain("Notebook");
  const about = await getWithHost(`${reposite.server.url}/about`, "notebook-mcp.sites.test");
  expect(about.status).toBe(200);

  const status = await mcp.call("get_status", { site_id: project.id });
  expect(status.structuredContent).toMatchObject({
    site: { id: project.id, slug: "notebook-mcp", url: "http://notebook-mcp.sites.test", plan: { mode: "website", pages: ["about", "faq"] } },
    app: null,
  });
  const listed = await mcp.call("list_projects");
  expect((listed.structuredContent as { projects: { id: string }[] }).projects.map((p) => p.id)).toContain(project.id);
});

it("answers API errors as tool errors with the status and code, and keeps serving", async () => {
  const unknown = await mcp.call("get_status", { site_id: "site_doesnotexist" });
  expect(unknown.isError).toBe(true);
  expect(unknown.structuredContent).toMatchObject({ error: { code: "not_found", status: 404 } });
  expect(textOf(unknown)).toMatch(/404 not_found/);

  const badLink = await mcp.call("create_project", { repository: "not a repository" });
  expect(badLink.isError).toBe(true);
  const error = (badLink.structuredContent as { error: { code: string; status: number } }).error;
  expect(error.status).toBe(422);
  expect(error.code).toMatch(/^[a-z_]+$/);
  expect(textOf(badLink)).toContain(`422 ${error.code}`);

  const nothing = await mcp.call("publish_site", { site_id: (await createdSiteId()) });
  expect(nothing.structuredContent).toMatchObject({ error: { code: "nothing_to_publish", status: 409 } });

  // Input the schema refuses is a tool error too (from the MCP SDK), not a crash.
  const invalid = await mcp.call("generate_site", { site_id: "x", mode: "blog" });
  expect(invalid.isError).toBe(true);
  expect(textOf(invalid)).toMatch(/mode/);

  // Still serving.
  expect((await mcp.call("list_projects")).isError).toBeFalsy();
});

it("without a token, starts, lists its tools and answers every call with how to get one", async () => {
  const anonymous = await reposite.connect({ REPOSITE_URL: reposite.server.url });
  const { tools } = await anonymous.client.listTools();
  expect(tools.length).toBeGreaterThan(4);
  for (const tool of tools) {
    const answer = await anonymous.call(tool.name, { site_id: "site_x", repository: "https://github.com/acme/notebook" });
    expect(answer.isError, tool.name).toBe(true);
    expect(answer.structuredContent, tool.name).toMatchObject({ error: { code: "no_token" } });
    expect(textOf(answer)).toContain("REPOSITE_TOKEN");
    expect(textOf(answer)).toContain(`${reposite.server.url}/account`);
  }
  expect(anonymous.stderr()).toContain("no usable token");
});

it("answers 401 unauthorized for a revoked or wrong token, without quoting it", async () => {
  const wrong = "rps_wrongwrongwrongwrongwrong";
  const session = await reposite.connect({ REPOSITE_URL: reposite.server.url, REPOSITE_TOKEN: wrong });
  const answer = await session.call("list_projects");
  expect(answer.isError).toBe(true);
  expect(answer.structuredContent).toMatchObject({ error: { code: "unauthorized", status: 401 } });
  expect(JSON.stringify(answer)).not.toContain(wrong);
});

async function createdSiteId(): Promise<string> {
  const created = await mcp.call("create_project", { repository: "github.com/acme/notebook" });
  return (created.structuredContent as { project: { id: string } }).project.id;
}
