import { createReposite } from "@reposite/core";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.js";
import { remoteEdgeSettingsFromEnv, settingsFromEnv } from "../../src/config-from-env.js";

// The settings of `reposite edge` and of a control plane's edge feed, and the feed's answers to
// requests that are wrong (in-process: no nginx, no edge process).

const TOKEN = "e".repeat(40);

describe("reposite edge's settings", () => {
  it("needs the token and at least one control plane, and says which is wrong", () => {
    expect(() => remoteEdgeSettingsFromEnv({ REPOSITE_CONTROL_PLANES: "http://10.0.0.5:3000" })).toThrow("reposite edge needs REPOSITE_EDGE_TOKEN");
    expect(() => remoteEdgeSettingsFromEnv({ REPOSITE_EDGE_TOKEN: TOKEN })).toThrow("reposite edge needs REPOSITE_CONTROL_PLANES");
    expect(() => remoteEdgeSettingsFromEnv({ REPOSITE_EDGE_TOKEN: "short", REPOSITE_CONTROL_PLANES: "http://10.0.0.5:3000" })).toThrow("REPOSITE_EDGE_TOKEN must be at least 32 characters");
    for (const bad of ["10.0.0.5:3000", "https://cp.example", "http://cp.example/api", "ftp://cp"]) {
      expect(() => remoteEdgeSettingsFromEnv({ REPOSITE_EDGE_TOKEN: TOKEN, REPOSITE_CONTROL_PLANES: bad })).toThrow(`REPOSITE_CONTROL_PLANES must list control planes' http addresses without a path`);
    }
  });

  it("reads the control planes, where nginx listens and where the edge keeps its files", () => {
    const settings = remoteEdgeSettingsFromEnv({ REPOSITE_EDGE_TOKEN: TOKEN, REPOSITE_CONTROL_PLANES: "http://10.0.0.5:3000/, http://10.0.0.6:3000", PORT: "8080", HOST: "0.0.0.0", REPOSITE_DATA_DIR: "/srv/edge" });
    expect(settings).toMatchObject({ controlPlanes: ["http://10.0.0.5:3000", "http://10.0.0.6:3000"], listen: { port: 8080, hostname: "0.0.0.0" }, dir: "/srv/edge/edge", token: TOKEN, trustProxy: false, shutdownMs: 10_000 });
  });

  it("serves HTTPS on REPOSITE_HTTPS_PORT (the control planes' certificates) only when it is set, and refuses a port that is none", () => {
    const base = { REPOSITE_EDGE_TOKEN: TOKEN, REPOSITE_CONTROL_PLANES: "http://10.0.0.5:3000", HOST: "0.0.0.0" };
    expect(remoteEdgeSettingsFromEnv(base).tls).toBeUndefined();
    expect(remoteEdgeSettingsFromEnv({ ...base, REPOSITE_HTTPS_PORT: "443" }).tls).toEqual({ listen: { port: 443, hostname: "0.0.0.0" } });
    expect(() => remoteEdgeSettingsFromEnv({ ...base, REPOSITE_HTTPS_PORT: "https" })).toThrow("REPOSITE_HTTPS_PORT must be a whole number from 0 to 65535");
  });

  it("refuses a control plane's edge token that is too short at start", () => {
    expect(() => settingsFromEnv({ REPOSITE_EDGE_TOKEN: "x".repeat(31) })).toThrow("REPOSITE_EDGE_TOKEN must be at least 32 characters");
    expect(settingsFromEnv({}).reposite.register).toBeUndefined();
  });
});

describe("the edge feed's answers to wrong requests", () => {
  let dataDir: string;
  const servers: { reposite: ReturnType<typeof createReposite>; app: ReturnType<typeof createApp> }[] = [];
  const withFeed = () => servers[0]!.app;
  const withoutFeed = () => servers[1]!.app;
  const call = (app: ReturnType<typeof createApp>, path: string, init: RequestInit = {}) => app.request(`http://127.0.0.1:3000${path}`, init);

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "reposite-edge-feed-"));
    for (const env of [{ REPOSITE_EDGE_TOKEN: TOKEN }, {}]) {
      const reposite = createReposite({ ...settingsFromEnv({ ...env, REPOSITE_DATA_DIR: dataDir }).reposite, repoHosts: [] });
      servers.push({ reposite, app: createApp(reposite) });
    }
  });
  afterAll(async () => {
    for (const { reposite } of servers) await reposite.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("is 404 on a server without an edge token", async () => {
    const answer = await call(withoutFeed(), "/edge/routes", { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(answer.status).toBe(404);
    expect(await answer.json()).toMatchObject({ code: "not_found" });
  });

  it("is 401 before anything else without the token, even for a malformed request", async () => {
    const answer = await call(withFeed(), "/edge/routes?after=abc", { headers: { authorization: "Bearer wrong" } });
    expect(answer.status).toBe(401);
  });

  it("answers a certificate to the edge token only, and 404 while built-in ACME is off; lists none in the feed", async () => {
    expect((await call(withFeed(), "/edge/certificates/www.rocket.example")).status).toBe(401);
    const auth = { authorization: `Bearer ${TOKEN}` };
    const off = await call(withFeed(), "/edge/certificates/www.rocket.example", { headers: auth });
    expect(off.status).toBe(404);
    expect(await off.json()).toMatchObject({ code: "not_found" });
    expect((await call(withFeed(), "/edge/certificates/WWW.Rocket", { headers: auth })).status).toBe(422);
    expect(await (await call(withFeed(), "/edge/routes?after=0", { headers: auth })).json()).toMatchObject({ certificates: [] });
  });

  it("is 422 for a version that is no number, 404 for a site not published, and counts nothing a bot asked for", async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    expect((await call(withFeed(), "/edge/routes?after=abc", { headers: auth })).status).toBe(422);
    expect((await call(withFeed(), "/edge/sites/nobody-here", { headers: auth })).status).toBe(404);
    expect((await call(withFeed(), "/edge/sites/..%2Fetc", { headers: auth })).status).toBe(422);
    const visits = await call(withFeed(), "/edge/visits", {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ visits: [{ site_id: "site_x", method: "GET", path: "/", user_agent: "Googlebot/2.1" }] }),
    });
    expect(visits.status).toBe(200);
    expect(await visits.json()).toEqual({ counted: 0 });
    // A repeated line's count is 1 to 1 000 000.
    for (const count of [0, 1.5, 2_000_000]) {
      const bad = await call(withFeed(), "/edge/visits", {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ visits: [{ site_id: "site_x", method: "GET", path: "/", count }] }),
      });
      expect(bad.status, String(count)).toBe(422);
    }
    const routes = await call(withFeed(), "/edge/routes?after=0", { headers: auth });
    expect(routes.status).toBe(200);
    expect(await routes.json()).toMatchObject({ version: expect.any(Number), apps: [], domains: [], sites: [] });
  });
});
