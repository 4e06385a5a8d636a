import { projectsCreate, projectsDelete, projectsGet, projectsList, projectsUpdate } from "@reposite/contract";
import type { Reposite } from "@reposite/core";
import type { H3 } from "h3";
import { requireToken } from "../http/auth.js";
import { operationRoute } from "../http/operation-route.js";

export function projectRoutes(app: H3, reposite: Reposite): void {
  operationRoute(app, projectsCreate, async (event, { body }) => {
    const { account } = await requireToken(reposite, event);
    const project = await reposite.projects.create(account.id, body);
    event.res.status = 201;
    return project;
  });

  operationRoute(app, projectsList, async (event) => {
    const { account } = await requireToken(reposite, event);
    return reposite.projects.list(account.id);
  });

  operationRoute(app, projectsGet, async (event, { params }) => {
    const { account } = await requireToken(reposite, event);
    return reposite.projects.get(account.id, params.site_id);
  });

  operationRoute(app, projectsUpdate, async (event, { params, body }) => {
    const { account } = await requireToken(reposite, event);
    return reposite.projects.update(account.id, params.site_id, body);
  });

  operationRoute(app, projectsDelete, async (event, { params, query }) => {
    const { account } = await requireToken(reposite, event);
    await reposite.projectRemoval.delete(account.id, params.site_id, { purge: query.purge });
    event.res.status = 204;
    return null;
  });
}
