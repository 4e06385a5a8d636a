import { z } from "zod";

/** Inputs several tools share, described for the model that fills them in. */
export const siteId = z.string().min(1).describe("The project's id (`id` from create_project or list_projects).");

export const pagePlan = z.enum(["about", "faq", "auth"]);
