import { designsList, type Design } from "@reposite/contract";
import { DESIGNS } from "@reposite/core";
import type { H3 } from "h3";
import { operationRoute } from "../http/operation-route.js";

/** The catalogue as the API shows it; the look stays inside (renderers use it). */
const designList: Design[] = DESIGNS.map(({ id, name, description, type, scheme }) => ({ id, name, description, type, scheme }));

export function designRoutes(app: H3): void {
  operationRoute(app, designsList, () => designList);
}
