import { PLAN_PAGES } from "@reposite/sdk";
import { z } from "zod";

/** Inputs several tools share, described for the model that fills them in. */
export const siteId = z.string().min(1).describe("The project's id (`id` from create_project or list_projects).");

/** The contract's plan pages (through the SDK). */
export const pagePlan = z.enum(PLAN_PAGES);
