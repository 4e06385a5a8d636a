import type { Reposite } from "@reposite/core";
import { getRouterParam, type H3, type H3Event } from "h3";
import { requireToken } from "../http/auth.js";
import { readJsonBody } from "../http/json-body.js";

const siteId = (event: H3Event) => getRouterParam(event, "site_id")!;

/** App hosting: the project's app, its env, deploys and runs, stop/start/restart, removal, resources. */
export function deploymentRoutes(app: H3, reposite: Reposite): void {
  const { hosting } = reposite;

  app.put("/app/sites/:site_id/deployment", async (event) => {
    const { account } = await requireToken(reposite, event);
    const { created, deployment } = await hosting.setup(account.id, siteId(event), await readJsonBody(event));
    event.res.status = created ? 201 : 200;
    return deployment;
  });

  app.get("/app/sites/:site_id/deployment", async (event) => {
    const { account } = await requireToken(reposite, event);
    return hosting.read(account.id, siteId(event));
  });

  app.delete("/app/sites/:site_id/deployment", async (event) => {
    const { account } = await requireToken(reposite, event);
    await hosting.remove(account.id, siteId(event));
    event.res.status = 204;
    return null;
  });

  app.put("/app/sites/:site_id/deployment/env", async (event) => {
    const { account } = await requireToken(reposite, event);
    return hosting.setEnv(account.id, siteId(event), await readJsonBody(event));
  });

  app.get("/app/sites/:site_id/deployment/env", async (event) => {
    const { account } = await requireToken(reposite, event);
    return hosting.env(account.id, siteId(event));
  });

  app.post("/app/sites/:site_id/deployment/deploy", async (event) => {
    const { account } = await requireToken(reposite, event);
    const started = await hosting.deploy(account.id, siteId(event));
    event.res.status = 202;
    return started;
  });

  app.get("/app/sites/:site_id/deployment/runs", async (event) => {
    const { account } = await requireToken(reposite, event);
    return hosting.listRuns(account.id, siteId(event));
  });

  app.get("/app/sites/:site_id/deployment/runs/:run_id", async (event) => {
    const { account } = await requireToken(reposite, event);
    return hosting.getRun(account.id, siteId(event), getRouterParam(event, "run_id")!);
  });

  app.post("/app/sites/:site_id/deployment/restart", async (event) => {
    const { account } = await requireToken(reposite, event);
    return hosting.restart(account.id, siteId(event));
  });

  app.post("/app/sites/:site_id/deployment/stop", async (event) => {
    const { account } = await requireToken(reposite, event);
    return hosting.stop(account.id, siteId(event));
  });

  app.post("/app/sites/:site_id/deployment/start", async (event) => {
    const { account } = await requireToken(reposite, event);
    return hosting.start(account.id, siteId(event));
  });

  app.get("/app/sites/:site_id/deployment/resources", async (event) => {
    const { account } = await requireToken(reposite, event);
    return hosting.resources(account.id, siteId(event));
  });
}
