import { findDesign, pickDesign } from "@reposite/core";
import { startImageHost, TEST_PNG, type ImageHost } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, json, startHarness, type Harness, type Transport } from "./harness.js";

describe.each<Transport>(["in-process", "socket"])("projects API (%s)", (transport) => {
  let h: Harness;
  let ada: { token: string };
  let bob: { token: string };
  let images: ImageHost;

  beforeAll(async () => {
    images = await startImageHost();
    // The logo host is on loopback, which only an operator's setting lets logo URLs reach.
    h = await startHarness(transport, undefined, { config: { allowPrivateFetch: true } });
    ada = await h.signUp("ada@example.com");
    bob = await h.signUp("bob@example.com");
  });
  afterAll(async () => {
    await h.close();
    await images.close();
  });

  const create = (body: unknown, token = ada.token) => h.call("/app/sites", json(body, token));

  it("creates a project from a repository link: 201, name from the repository, design picked from its topics", async () => {
    const response = await create({ repohost_url: "https://github.com/acme/rocket-cli" });
    expect(response.status).toBe(201);
    const project = await response.json();
    const expectedDesign = pickDesign({
      name: "rocket-cli",
      description: "A fast command line tool for launching rockets",
      topics: ["cli", "terminal"],
    });
    expect(project).toMatchObject({
      id: expect.stringMatching(/^site_/),
      slug: null,
      url: null,
      name: "rocket-cli",
      description: "A fast command line tool for launching rockets",
      ga_id: "",
      design: expectedDesign.id,
      color_mode: "",
      logo_url: "",
      auth_redirect_to_app: false,
      repohost_url: "https://github.com/acme/rocket-cli",
      private: false,
      visits: 0,
      app_status: null,
      wizard: null,
      deployment: null,
    });
    expect(expectedDesign.keywords.some((keyword) => ["cli", "terminal"].includes(keyword))).toBe(true);
  });

  it("accepts any form of link, a chosen name and a chosen design", async () => {
    const response = await create({
      repohost_url: "git@github.com:acme/rocket-cli.git",
      name: "Rocket",
      design: "aurora",
    });
    expect(findDesign("aurora")).toBeDefined();
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ name: "Rocket", design: "aurora" });
  });

  it.each([
    [{ repohost_url: "https://gitlab.com/acme/rocket-cli" }, 422, "invalid_repo_url"],
    [{ repohost_url: "acme/rocket-cli" }, 422, "invalid_repo_url"],
    [{ repohost_url: "https://github.com/acme/rocket-cli/tree/main/.git" }, 422, "invalid_repo_url"],
    [{ repohost_url: "https://github.com/acme/rocket-cli/tree/main/node_modules/x" }, 422, "invalid_repo_url"],
    [{ repohost_url: "https://github.com/acme/rocket-cli/blob/main/packages/a/node_modules/b/README.md" }, 422, "invalid_repo_url"],
    [{}, 422, "invalid_request"],
    [{ repohost_url: "https://github.com/acme/missing" }, 404, "repo_not_found"],
    [{ repohost_url: "https://github.com/acme/secret-sauce" }, 404, "repo_not_found"],
    [{ repohost_url: "https://github.com/acme/rocket-cli", design: "no-such-design" }, 422, "unknown_design"],
    [{ repohost_url: "https://github.com/acme/rocket-cli", name: "" }, 422, "invalid_request"],
    [{ repohost_url: "https://github.com/acme/rocket-cli", colour: "red" }, 422, "invalid_request"],
  ])("refuses %j with %i %s and creates nothing", async (body, status, code) => {
    const before = (await (await h.call("/app/sites", bearer(ada.token))).json()).length;
    const response = await create(body);
    expect(response.status).toBe(status);
    const error = await response.json();
    expect(error).toMatchObject({ code, error: expect.any(String) });
    expect(error.error.length).toBeGreaterThan(10);
    expect((await (await h.call("/app/sites", bearer(ada.token))).json()).length).toBe(before);
  });

  it("lists the caller's projects newest first, with address, visits and app state, and nobody else's", async () => {
    const first = await (await create({ repohost_url: "https://github.com/acme/rocket-cli", name: "first" })).json();
    const second = await (await create({ repohost_url: "https://github.com/acme/rocket-cli", name: "second" })).json();
    await create({ repohost_url: "https://github.com/acme/rocket-cli", name: "bob's" }, bob.token);
    const list = await (await h.call("/app/sites", bearer(ada.token))).json();
    expect(list.slice(0, 2).map((p: { id: string }) => p.id)).toEqual([second.id, first.id]);
    expect(list.every((p: { name: string }) => p.name !== "bob's")).toBe(true);
    for (const field of ["url", "slug", "visits", "app_status"]) expect(list[0]).toHaveProperty(field);
    expect(list[0]).not.toHaveProperty("wizard");
  });

  it("reads one project with wizard and deployment", async () => {
    const created = await (await create({ repohost_url: "https://github.com/acme/rocket-cli" })).json();
    const response = await h.call(`/app/sites/${created.id}`, bearer(ada.token));
    expect(response.status).toBe(200);
    const project = await response.json();
    expect(project).toMatchObject({ id: created.id, wizard: null, deployment: null });
  });

  describe("PATCH", () => {
    let id: string;
    beforeAll(async () => {
      id = (await (await create({ repohost_url: "https://github.com/acme/rocket-cli" })).json()).id;
    });
    const patch = (body: unknown, token = ada.token) => h.call(`/app/sites/${id}`, json(body, token, "PATCH"));

    it("changes every editable field and keeps the rest", async () => {
      const changes = {
        name: "Rocket CLI",
        description: "Launch rockets from your terminal.",
        ga_id: "G-ABC123XYZ",
        design: "aurora",
        color_mode: "Dark mode",
        logo_url: `${images.url}/logo.png`,
        auth_redirect_to_app: false,
      };
      const response = await patch(changes);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ ...changes, repohost_url: "https://github.com/acme/rocket-cli" });
      const read = await (await h.call(`/app/sites/${id}`, bearer(ada.token))).json();
      expect(read).toMatchObject(changes);
    });

    it("accepts the empty design for the automatic pick and empty values to clear", async () => {
      const response = await patch({ design: "", ga_id: "", logo_url: "", color_mode: "Light mode" });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ design: "", ga_id: "", logo_url: "", color_mode: "Light mode" });
    });

    it.each([
      [{ name: "" }, "name"],
      [{ name: "x".repeat(101) }, "name"],
      [{ description: "x".repeat(501) }, "description"],
      [{ ga_id: "my-analytics" }, "ga_id"],
      [{ design: "no-such-design" }, "design"],
      [{ color_mode: "Sepia" }, "color_mode"],
      [{ logo_url: "javascript:alert(1)" }, "logo_url"],
      [{ auth_redirect_to_app: "yes" }, "auth_redirect_to_app"],
      [{ slug: "taken-here" }, ""],
    ])("refuses %j with 422 naming the field, changing nothing", async (body, field) => {
      const before = await (await h.call(`/app/sites/${id}`, bearer(ada.token))).json();
      const response = await patch(body);
      expect(response.status).toBe(422);
      const error = await response.json();
      if (field) expect(error.field).toBe(field);
      expect(await (await h.call(`/app/sites/${id}`, bearer(ada.token))).json()).toEqual(before);
    });

    it("copies the logo when logo_url is set, and refuses one that is not a usable image, changing nothing", async () => {
      expect((await patch({ logo_url: `${images.url}/hop/1` })).status).toBe(200);
      expect((await h.reposite.projects.getOwned((await h.reposite.accounts.findOrCreate("ada@example.com")).account.id, id)).logo_image).toBe(
        `data:image/png;base64,${TEST_PNG.toString("base64")}`,
      );
      const before = await (await h.call(`/app/sites/${id}`, bearer(ada.token))).json();
      const response = await patch({ name: "Not applied", logo_url: `${images.url}/page.html` });
      expect(response.status).toBe(422);
      expect(await response.json()).toMatchObject({ code: "logo_unavailable", field: "logo_url", error: expect.stringContaining("not a PNG") });
      expect(await (await h.call(`/app/sites/${id}`, bearer(ada.token))).json()).toEqual(before);
    });

    it("refuses auth_redirect_to_app without a published sign-in page and a deployed app", async () => {
      const response = await patch({ auth_redirect_to_app: true });
      expect(response.status).toBe(409);
      expect(await response.json()).toMatchObject({ code: "auth_redirect_unavailable" });
    });
  });

  it("deletes a project (204), with and without purge; a bad purge value is refused", async () => {
    const a = await (await create({ repohost_url: "https://github.com/acme/rocket-cli" })).json();
    const b = await (await create({ repohost_url: "https://github.com/acme/rocket-cli" })).json();
    const maybe = await h.call(`/app/sites/${a.id}?purge=maybe`, bearer(ada.token, "DELETE"));
    expect(maybe.status).toBe(422);
    expect(await maybe.json()).toMatchObject({ code: "invalid_request", field: "purge" });
    expect((await h.call(`/app/sites/${a.id}`, bearer(ada.token))).status).toBe(200);
    expect((await h.call(`/app/sites/${a.id}`, bearer(ada.token, "DELETE"))).status).toBe(204);
    expect((await h.call(`/app/sites/${b.id}?purge=1`, bearer(ada.token, "DELETE"))).status).toBe(204);
    for (const id of [a.id, b.id]) expect((await h.call(`/app/sites/${id}`, bearer(ada.token))).status).toBe(404);
    const list = await (await h.call("/app/sites", bearer(ada.token))).json();
    expect(list.map((p: { id: string }) => p.id)).not.toContain(a.id);
  });

  it("answers 404 for another account's project and for a missing one, on every route that takes a site id", async () => {
    const project = await (await create({ repohost_url: "https://github.com/acme/rocket-cli" })).json();
    const routes: [string, RequestInit][] = [
      ["", bearer(bob.token)],
      ["", json({ name: "mine now" }, bob.token, "PATCH")],
      ["", bearer(bob.token, "DELETE")],
    ];
    for (const [suffix, init] of routes) {
      const theirs = await h.call(`/app/sites/${project.id}${suffix}`, init);
      expect(theirs.status).toBe(404);
      const missing = await h.call(`/app/sites/site_doesnotexist${suffix}`, init);
      expect(missing.status).toBe(404);
      expect(await theirs.json()).toEqual(await missing.json());
    }
    expect((await (await h.call(`/app/sites/${project.id}`, bearer(ada.token))).json()).name).toBe("rocket-cli");
  });

  it("lists 30 designs without a token, covering every type and both schemes", async () => {
    const response = await h.call("/app/designs");
    expect(response.status).toBe(200);
    const designs = await response.json();
    expect(designs).toHaveLength(30);
    for (const design of designs) {
      expect(Object.keys(design).sort()).toEqual(["description", "id", "name", "scheme", "type"]);
    }
    for (const type of ["saas", "website", "landing"]) {
      for (const scheme of ["light", "dark"]) {
        expect(designs.some((d: { type: string; scheme: string }) => d.type === type && d.scheme === scheme)).toBe(true);
      }
    }
  });
});
