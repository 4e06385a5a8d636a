import type { Reposite } from "@reposite/core";
import type { H3 } from "h3";

/** SCAFFOLD (issue 12, in progress). */
export function deploymentFixRoutes(_app: H3, _reposite: Reposite): void {}
