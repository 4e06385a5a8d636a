import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, json, startHarness, type Harness } from "./harness.js";

const NODE_APP = {
  owner: "acme",
  name: "notes-api",
  description: "A notes API",
  topics: ["api"],
  files: {
    "package.json": JSON.stringify({ name: "notes-api", scripts: { start: "node server.js" }, dependencies: { express: "^4.19.0" } }),
    "server.js": "require('express')().listen(process.env.PORT || 3000, '0.0.0.0')",
    "deploy/Dockerfile": [
      "FROM node:22-slim AS build",
      "ARG APP_PORT=8080",
      "ENV PORT=${APP_PORT}",
      "WORKDIR /app",
      "COPY . .",
      "RUN npm ci --omit=dev",
      "EXPOSE ${PORT}",
      'CMD ["node", "server.js"]',
    ].join("\n"),
    ".env.example": [
      "# Where the app is reachable",
      "APP_URL=",
      "# Signs session cookies",
      "SESSION_SECRET=",
      "# Your Stripe key",
      "STRIPE_SECRET_KEY=",
    ].join("\n"),
  },
};

describe("GET /app/sites/{id}/repo-check", () => {
  let h: Harness;
  let token: string;
  let siteId: string;

  beforeAll(async () => {
    h = await startHarness("socket", [NODE_APP, { owner: "acme", name: "empty", files: { "LICENSE": "MIT" } }]);
    ({ token } = await h.signUp("ada@example.com"));
    const created = await h.call("/app/sites", json({ repohost_url: "https://github.com/acme/notes-api" }, token));
    siteId = (await created.json()).id;
  });
  afterAll(() => h.close());

  it("reads the repository at its default branch: Dockerfile found elsewhere, analysis, automatic build and settings", async () => {
    const response = await h.call(`/app/sites/${siteId}/repo-check`, bearer(token));
    expect(response.status).toBe(200);
    const check = await response.json();
    expect(check.dockerfile).toBe(false);
    expect(check.dockerfile_found).toEqual({ path: "deploy/Dockerfile" });
    expect(check.analysis).toEqual({ expose: [8080], command: "node server.js", kind: "web", warnings: [] });
    expect(check.auto).toMatchObject({ found: true, name: expect.stringContaining("Express"), start: expect.any(String) });
    expect(check.auto.dockerfile).toContain("EXPOSE 3000");
    const vars = Object.fromEntries(check.setup.vars.map((v: { name: string }) => [v.name, v]));
    expect(vars.APP_URL).toMatchObject({ input: "auto", value: "http://notes-api.sites.test/app" });
    expect(vars.SESSION_SECRET).toMatchObject({ input: "generate", value: "" });
    expect(vars.STRIPE_SECRET_KEY).toMatchObject({ input: "secret", value: "" });
    expect(Array.isArray(check.setup.notes)).toBe(true);
  });

  it("takes the Dockerfile path asked for", async () => {
    const check = await (await h.call(`/app/sites/${siteId}/repo-check?path=deploy/Dockerfile`, bearer(token))).json();
    expect(check.dockerfile).toBe(true);
    expect(check).not.toHaveProperty("dockerfile_found");
    expect(check.analysis.expose).toEqual([8080]);
  });

  it("explains when nothing can be built automatically", async () => {
    const created = await (await h.call("/app/sites", json({ repohost_url: "https://github.com/acme/empty" }, token))).json();
    const check = await (await h.call(`/app/sites/${created.id}/repo-check`, bearer(token))).json();
    expect(check).toMatchObject({ dockerfile: false, analysis: null, auto: { found: false, reason: expect.stringMatching(/Dockerfile/) } });
  });

  it("answers 404 for a missing ref, 422 for a path leaving the repository, 404 for someone else's project", async () => {
    expect((await h.call(`/app/sites/${siteId}/repo-check?ref=no-such-branch`, bearer(token))).status).toBe(404);
    const outside = await h.call(`/app/sites/${siteId}/repo-check?path=../etc/passwd`, bearer(token));
    expect(outside.status).toBe(422);
    const bob = await h.signUp("bob@example.com");
    expect((await h.call(`/app/sites/${siteId}/repo-check`, bearer(bob.token))).status).toBe(404);
  });
});
