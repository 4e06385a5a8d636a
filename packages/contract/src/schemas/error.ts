import { z } from "zod";

/** Every error answer: a sentence for people, a stable `code` for programs, and details some codes add. */
export const errorSchema = z
  .looseObject({
    error: z.string(),
    code: z.string().optional(),
    field: z.string().optional(),
    retry_after: z.number().optional(),
  })
  .meta({ id: "Error" });
