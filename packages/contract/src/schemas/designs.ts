import { z } from "zod";
import { generationModeSchema } from "./generation.js";

/** A design of the catalogue, as `GET /app/designs` lists it (its colours and fonts stay inside). */
export const designSchema = z
  .strictObject({
    id: z.string().describe("Stable id; what a project's `design` takes"),
    name: z.string(),
    description: z.string().describe("One line"),
    type: generationModeSchema.describe("The project type it suits: `saas`, `website` or `landing`"),
    scheme: z.enum(["light", "dark"]).describe("Light or dark by default"),
  })
  .meta({ id: "Design" });
export type Design = z.output<typeof designSchema>;

export const designListSchema = z.array(designSchema).describe("Every design of the catalogue");
