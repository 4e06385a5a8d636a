import { defineOperation } from "../operation.js";
import { agentLoginSchema, agentTokenExchangeSchema, agentTokenSchema, loginRequestSchema, meSchema } from "../schemas/agent.js";

export * from "../schemas/agent.js";

export const agentLogin = defineOperation({
  id: "agent.login",
  method: "POST",
  path: "/agent/login",
  tag: "Tokens and login",
  summary: "Start an agent login: the person opens the link (mailed, or `verification_url`), signs in and reads out a code",
  auth: "none",
  body: agentLoginSchema,
  answers: { 201: { description: "The login request", schema: loginRequestSchema } },
  errors: ["invalid_request", "rate_limited"],
});

export const agentToken = defineOperation({
  id: "agent.token",
  method: "POST",
  path: "/agent/token",
  tag: "Tokens and login",
  summary: "Trade the login request and the code the person read out for a 90-day token",
  auth: "none",
  body: agentTokenExchangeSchema,
  answers: { 200: { description: "The token; its secret is shown this once", schema: agentTokenSchema } },
  errors: ["invalid_request", "invalid_code", "not_opened", "wrong_account", "denied", "expired", "token_limit"],
});

export const agentMe = defineOperation({
  id: "agent.me",
  method: "GET",
  path: "/agent/me",
  tag: "Tokens and login",
  summary: "Who the calling token acts as, and the token",
  auth: "token",
  answers: { 200: { description: "The account and the token", schema: meSchema } },
});

export const agentLogout = defineOperation({
  id: "agent.logout",
  method: "DELETE",
  path: "/agent/token",
  tag: "Tokens and login",
  summary: "Revoke the token used for this call",
  auth: "token",
  answers: { 204: { description: "Revoked" } },
});
