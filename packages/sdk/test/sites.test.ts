import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer, type RunningServer } from "@reposite/server";
import { startFakeGitHub, type FakeGitHub } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AuthenticationError,
  ConflictError,
  createClient,
  NotFoundError,
  UnprocessableEntityError,
  type Design,
  type ProjectDetailView,
  type ProjectView,
  type RepositeClient,
} from "../src/index.js";

// The SDK against the real server, over a socket, with a loopback fake GitHub behind it.
let fake: FakeGitHub;
let server: RunningServer;
let dataDir: string;

beforeAll(async () => {
  fake = await startFakeGitHub({
    repos: [
      { owner: "acme", name: "rocket-cli", description: "A fast command line tool for launching rockets", topics: ["cli", "terminal"], readme: "# rocket-cli" },
      { owner: "acme", name: "notebook", description: "Notes for data science", topics: ["jupyter"] },
    ],
  });
  dataDir = await mkdtemp(join(tmpdir(), "reposite-sdk-"));
  server = await startServer({
    settings: {
      listen: { port: 0, hostname: "127.0.0.1" },
      reposite: {
        config: { dataDir, baseUrl: "http://127.0.0.1", sitesDomain: "sites.test" },
        // github.com links are what people paste; the fake answers for GitHub's API.
        github: { apiUrl: fake.url, webHosts: ["github.com"] },
      },
    },
  });
});

afterAll(async () => {
  await server?.close();
  await fake?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

let accounts = 0;
/** A client with a working token of a new account. */
async function signUp(): Promise<RepositeClient> {
  const { account } = await server.reposite.accounts.findOrCreate(`person${++accounts}@example.com`);
  const { secret } = await server.reposite.tokens.create(account.id, { name: "sdk test", lifetime: "90d" });
  return createClient({ baseURL: server.url, token: secret });
}

const ROCKET = "https://github.com/acme/rocket-cli";

describe("designs", () => {
  it("lists the 30 designs without a token", async () => {
    const designs: Design[] = await createClient({ baseURL: server.url }).designs.list();
    expect(designs).toHaveLength(30);
    for (const design of designs) {
      expect(Object.keys(design).sort()).toEqual(["description", "id", "name", "scheme", "type"]);
      expect(["saas", "website", "landing"]).toContain(design.type);
      expect(["light", "dark"]).toContain(design.scheme);
    }
  });
});

describe("sites", () => {
  let designIds: string[];
  beforeAll(async () => {
    designIds = (await createClient({ baseURL: server.url }).designs.list()).map((design) => design.id);
  });

  it("creates a project named after the repository, with a design picked for it", async () => {
    const client = await signUp();
    const site: ProjectDetailView = await client.sites.create({ repohost_url: ROCKET });
    expect(site).toMatchObject({
      id: expect.any(String),
      slug: null,
      url: null,
      name: "rocket-cli",
      description: "A fast command line tool for launching rockets",
      repohost_url: ROCKET,
      private: false,
      ga_id: "",
      color_mode: "",
      auth_redirect_to_app: false,
      visits: 0,
      app_status: null,
      wizard: null,
      deployment: null,
    });
    expect(designIds).toContain(site.design);
    // The pick depends on the repository only.
    expect((await client.sites.create({ repohost_url: `${ROCKET}.git` })).design).toBe(site.design);
  });

  it("creates a project with the name and design given", async () => {
    const client = await signUp();
    const design = designIds[designIds.length - 1]!;
    const site = await client.sites.create({ repohost_url: "git@github.com:acme/notebook.git", name: "Notebook Pro", design });
    expect(site).toMatchObject({ name: "Notebook Pro", design, repohost_url: "https://github.com/acme/notebook" });
  });

  it("lists the caller's projects, newest first, and only theirs", async () => {
    const client = await signUp();
    const older = await client.sites.create({ repohost_url: ROCKET });
    const newer = await client.sites.create({ repohost_url: "https://github.com/acme/notebook" });
    await (await signUp()).sites.create({ repohost_url: ROCKET });

    const list: ProjectView[] = await client.sites.list();
    expect(list.map((site) => site.id)).toEqual([newer.id, older.id]);
    expect(list[0]).toMatchObject({ name: "notebook", visits: 0, app_status: null, url: null });
    expect(list[0]).not.toHaveProperty("wizard");
  });

  it("reads one project with its wizard and deployment", async () => {
    const client = await signUp();
    const created = await client.sites.create({ repohost_url: ROCKET });
    const site = await client.sites.get(created.id);
    expect(site).toEqual(created);
    expect(site).toHaveProperty("wizard", null);
    expect(site).toHaveProperty("deployment", null);
  });

  it("updates the fields sent and leaves the rest", async () => {
    const client = await signUp();
    const created = await client.sites.create({ repohost_url: ROCKET });
    const updated = await client.sites.update(created.id, {
      name: "Rocket",
      description: "Launch things",
      ga_id: "G-ABC1234",
      color_mode: "Dark mode",
      design: "",
    });
    expect(updated).toMatchObject({ id: created.id, name: "Rocket", description: "Launch things", ga_id: "G-ABC1234", color_mode: "Dark mode", design: "" });
    expect(updated.repohost_url).toBe(ROCKET);
    expect(await client.sites.get(created.id)).toEqual(updated);
  });

  it("reports an invalid change as UnprocessableEntityError, and a blocked one as ConflictError", async () => {
    const client = await signUp();
    const { id } = await client.sites.create({ repohost_url: ROCKET });
    const invalid = await client.sites.update(id, { ga_id: "nonsense" }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(UnprocessableEntityError);
    expect(invalid).toMatchObject({ status: 422, code: "invalid_request", body: { field: "ga_id" } });
    const unknownDesign = await client.sites.update(id, { design: "no-such-design" }).catch((e: unknown) => e);
    expect(unknownDesign).toMatchObject({ status: 422, code: "unknown_design" });
    const blocked = await client.sites.update(id, { auth_redirect_to_app: true }).catch((e: unknown) => e);
    expect(ConflictError.isInstance(blocked)).toBe(true);
  });

  it("deletes a project, with and without purge", async () => {
    const client = await signUp();
    const kept = await client.sites.create({ repohost_url: ROCKET });
    const purged = await client.sites.create({ repohost_url: ROCKET });
    await expect(client.sites.delete(kept.id)).resolves.toBeUndefined();
    await expect(client.sites.delete(purged.id, { purge: true })).resolves.toBeUndefined();
    expect(await client.sites.list()).toEqual([]);
    await expect(client.sites.get(kept.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.sites.delete(kept.id)).rejects.toMatchObject({ status: 404 });
  });
});

describe("errors from the server", () => {
  it("answers AuthenticationError without a token, or with a wrong one", async () => {
    const wrongTokens = [undefined, "not-a-token", `rps_${"A".repeat(36)}`];
    for (const token of wrongTokens) {
      const client = createClient({ baseURL: server.url, token });
      const error = await client.sites.list().catch((e: unknown) => e);
      expect(AuthenticationError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ status: 401, message: expect.any(String) });
      expect((error as AuthenticationError).headers.get("www-authenticate")).toMatch(/^Bearer/);
      if (token) expect(String((error as Error).message)).not.toContain(token);
    }
  });

  it("answers NotFoundError for a missing project and for another account's", async () => {
    const owner = await signUp();
    const stranger = await signUp();
    const { id } = await owner.sites.create({ repohost_url: ROCKET });
    for (const call of [
      () => stranger.sites.get(id),
      () => stranger.sites.update(id, { name: "Mine now" }),
      () => stranger.sites.delete(id),
      () => owner.sites.get("site_doesnotexist"),
    ]) {
      const error = await call().catch((e: unknown) => e);
      expect(NotFoundError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ status: 404, message: "Project not found." });
    }
    expect((await owner.sites.get(id)).name).toBe("rocket-cli");
  });

  it("answers UnprocessableEntityError with code invalid_repo_url for a link that is not a repository", async () => {
    const client = await signUp();
    const error = await client.sites.create({ repohost_url: "https://gitlab.com/acme/rocket-cli" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    expect(error).toMatchObject({ status: 422, code: "invalid_repo_url", body: { code: "invalid_repo_url" } });
    expect((error as Error).message).toContain("gitlab.com/acme/rocket-cli");
  });

  it("answers NotFoundError with code repo_not_found for a repository that does not exist", async () => {
    const client = await signUp();
    await expect(client.sites.create({ repohost_url: "https://github.com/acme/missing" })).rejects.toMatchObject({
      name: "NotFoundError",
      status: 404,
      code: "repo_not_found",
    });
  });

  it("answers UnprocessableEntityError for input the schema refuses", async () => {
    const client = await signUp();
    // Casts stand in for callers without TypeScript.
    await expect(client.sites.create({} as never)).rejects.toMatchObject({ status: 422, code: "invalid_request", body: { field: "repohost_url" } });
    await expect(client.sites.create({ repohost_url: ROCKET, colour: "red" } as never)).rejects.toMatchObject({ status: 422, code: "invalid_request" });
  });
});
