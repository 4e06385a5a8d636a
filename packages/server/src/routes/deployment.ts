import {
  deploymentDeploy,
  deploymentEnvGet,
  deploymentEnvSet,
  deploymentGet,
  deploymentRemove,
  deploymentResources,
  deploymentRestart,
  deploymentRunGet,
  deploymentRuns,
  deploymentSetup,
  deploymentStart,
  deploymentStop,
} from "@reposite/contract";
import type { Reposite } from "@reposite/core";
import type { H3, H3Event } from "h3";
import { requireToken } from "../http/auth.js";
import { operationRoute } from "../http/operation-route.js";

/** App hosting: the project's app, its env, deploys and runs, stop/start/restart, removal, resources. */
export function deploymentRoutes(app: H3, reposite: Reposite): void {
  const { hosting } = reposite;
  /** The calling account, or `401`. */
  const caller = async (event: H3Event) => (await requireToken(reposite, event)).account.id;

  operationRoute(app, deploymentSetup, async (event, { params, body }) => {
    const { created, deployment } = await hosting.setup(await caller(event), params.site_id, body);
    event.res.status = created ? 201 : 200;
    return deployment;
  });

  operationRoute(app, deploymentGet, async (event, { params }) => hosting.read(await caller(event), params.site_id));

  operationRoute(app, deploymentRemove, async (event, { params }) => {
    await hosting.remove(await caller(event), params.site_id);
    event.res.status = 204;
    return null;
  });

  operationRoute(app, deploymentEnvSet, async (event, { params, body }) => hosting.setEnv(await caller(event), params.site_id, body));

  operationRoute(app, deploymentEnvGet, async (event, { params }) => hosting.env(await caller(event), params.site_id));

  operationRoute(app, deploymentDeploy, async (event, { params }) => {
    const started = await hosting.deploy(await caller(event), params.site_id);
    event.res.status = 202;
    return started;
  });

  operationRoute(app, deploymentRuns, async (event, { params }) => hosting.listRuns(await caller(event), params.site_id));

  operationRoute(app, deploymentRunGet, async (event, { params }) => hosting.getRun(await caller(event), params.site_id, params.run_id));

  operationRoute(app, deploymentRestart, async (event, { params }) => hosting.restart(await caller(event), params.site_id));

  operationRoute(app, deploymentStop, async (event, { params }) => hosting.stop(await caller(event), params.site_id));

  operationRoute(app, deploymentStart, async (event, { params }) => hosting.start(await caller(event), params.site_id));

  operationRoute(app, deploymentResources, async (event, { params }) => hosting.resources(await caller(event), params.site_id));
}
