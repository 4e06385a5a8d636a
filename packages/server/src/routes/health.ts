import { healthCheck } from "@reposite/contract";
import { STORAGE, type Reposite } from "@reposite/core";
import type { H3 } from "h3";
import { operationRoute } from "../http/operation-route.js";

/** For load balancers and operators: 200 when storage answers, 503 otherwise. */
export function healthRoutes(app: H3, reposite: Reposite): void {
  const storage = reposite.container.resolve(STORAGE);
  operationRoute(app, healthCheck, async (event) => {
    try {
      await storage.hasItem("health-probe");
      return { status: "ok" as const };
    } catch {
      event.res.status = 503;
      return { status: "unavailable", error: "Storage does not answer.", code: "storage_unavailable" };
    }
  });
}
