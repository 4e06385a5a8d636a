import { z } from "zod";
import { ERROR_CODE_LIST } from "../errors.js";

/**
 * Every error answer: a sentence for people, a stable `code` for programs (one of the table in
 * errors.ts), and details some codes add.
 */
export const errorSchema = z
  .looseObject({
    error: z.string(),
    code: z.enum(ERROR_CODE_LIST).optional(),
    field: z.string().optional(),
    retry_after: z.number().optional(),
  })
  .meta({ id: "Error" });
