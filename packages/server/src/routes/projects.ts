import { RepositeError, type Reposite } from "@reposite/core";
import { getQuery, getRouterParam, type H3, type H3Event } from "h3";
import { requireToken } from "../http/auth.js";
import { readJsonBody } from "../http/json-body.js";

const siteId = (event: H3Event) => getRouterParam(event, "site_id")!;

function purgeFlag(event: H3Event): boolean {
  const { purge } = getQuery(event);
  if (purge === undefined || purge === "0" || purge === "false") return false;
  if (purge === "1" || purge === "true") return true;
  throw new RepositeError(422, "purge must be 1 or left out.", "invalid_request", { field: "purge" });
}

export function projectRoutes(app: H3, reposite: Reposite): void {
  app.post("/app/sites", async (event) => {
    const { account } = await requireToken(reposite, event);
    const project = await reposite.projects.create(account.id, (await readJsonBody(event)) as never);
    event.res.status = 201;
    return project;
  });

  app.get("/app/sites", async (event) => {
    const { account } = await requireToken(reposite, event);
    return reposite.projects.list(account.id);
  });

  app.get("/app/sites/:site_id", async (event) => {
    const { account } = await requireToken(reposite, event);
    return reposite.projects.get(account.id, siteId(event));
  });

  app.patch("/app/sites/:site_id", async (event) => {
    const { account } = await requireToken(reposite, event);
    return reposite.projects.update(account.id, siteId(event), (await readJsonBody(event)) as never);
  });

  app.delete("/app/sites/:site_id", async (event) => {
    const { account } = await requireToken(reposite, event);
    await reposite.projectRemoval.delete(account.id, siteId(event), { purge: purgeFlag(event) });
    event.res.status = 204;
    return null;
  });
}
