import { DESIGNS } from "@reposite/core";
import type { H3 } from "h3";

/** The catalogue as the API shows it; the look stays inside (renderers use it). */
const designList = DESIGNS.map(({ id, name, description, type, scheme }) => ({ id, name, description, type, scheme }));

export function designRoutes(app: H3): void {
  app.get("/app/designs", () => designList);
}
