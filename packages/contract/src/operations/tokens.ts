import { defineOperation } from "../operation.js";
import { tokenListSchema, tokenParamsSchema } from "../schemas/tokens.js";

export * from "../schemas/tokens.js";

export const tokensList = defineOperation({
  id: "tokens.list",
  method: "GET",
  path: "/app/tokens",
  tag: "Tokens and login",
  summary: "The account's working tokens, newest first, without their secrets (new ones are made only in the browser)",
  auth: "token",
  answers: { 200: { description: "The tokens", schema: tokenListSchema } },
});

export const tokensRevoke = defineOperation({
  id: "tokens.revoke",
  method: "DELETE",
  path: "/app/tokens/:token_id",
  tag: "Tokens and login",
  summary: "Revoke one of the account's tokens; it stops working on its next request",
  auth: "token",
  params: tokenParamsSchema,
  answers: { 204: { description: "Revoked" } },
  errors: ["not_found"],
});
