import { defineOperation } from "../operation.js";
import { designListSchema } from "../schemas/designs.js";

export * from "../schemas/designs.js";

export const designsList = defineOperation({
  id: "designs.list",
  method: "GET",
  path: "/app/designs",
  tag: "Designs",
  summary: "The design catalogue (30 designs); no token needed",
  auth: "none",
  answers: { 200: { description: "The designs", schema: designListSchema } },
});
