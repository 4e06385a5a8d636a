import { defineOperation } from "../operation.js";
import { siteParamsSchema } from "../schemas/projects.js";
import {
  repoAccessStatusSchema,
  repoCallbackQuerySchema,
  repoCheckQuerySchema,
  repoCheckSchema,
  repoConnectSchema,
  repoConnectStartedSchema,
  repoLookupQuerySchema,
  repoLookupSchema,
} from "../schemas/repo-access.js";

export * from "../schemas/repo-access.js";

const HOST_ERRORS = ["repohost_unavailable", "repohost_rate_limited"] as const;

export const repohostLookup = defineOperation({
  id: "repohost.lookup",
  method: "GET",
  path: "/app/repohost/repo",
  tag: "Repository access",
  summary: "Whether a repository exists and is private, as the caller's access to the code host sees it",
  auth: "token",
  query: repoLookupQuerySchema,
  answers: { 200: { description: "What the code host says", schema: repoLookupSchema } },
  errors: ["invalid_request", "invalid_repo_url", ...HOST_ERRORS],
});

export const repohostConnect = defineOperation({
  id: "repohost.connect",
  method: "POST",
  path: "/app/repohost/connect",
  tag: "Repository access",
  summary: "Start connecting the code host (OAuth): the person opens the answer's `url` in a browser and authorizes",
  auth: "token",
  body: repoConnectSchema,
  answers: { 200: { description: "The code host's authorization page", schema: repoConnectStartedSchema } },
  errors: ["invalid_request", "invalid_repo_url", "repohost_auth_unavailable"],
});

export const repohostStatus = defineOperation({
  id: "repohost.status",
  method: "GET",
  path: "/app/repohost",
  tag: "Repository access",
  summary: "Whether the caller has connected a code host",
  auth: "token",
  answers: { 200: { description: "The connection", schema: repoAccessStatusSchema } },
});

export const repohostDisconnect = defineOperation({
  id: "repohost.disconnect",
  method: "DELETE",
  path: "/app/repohost",
  tag: "Repository access",
  summary: "Disconnect: revoke the access at the code host, then forget it",
  auth: "token",
  answers: { 204: { description: "Disconnected (also when nothing was connected)" } },
  errors: ["repohost_unavailable"],
});

/** A page of the browser's return from the code host; failures are pages too, with their status. */
const callbackPage = (description: string) => ({ description, contentType: "text/html" });

export const repohostCallback = defineOperation({
  id: "repohost.callback",
  method: "GET",
  path: "/app/repohost/callback",
  tag: "Repository access",
  summary: "Where the code host sends the person's browser back after authorizing; answers a page, never JSON",
  auth: "none",
  query: repoCallbackQuerySchema,
  answers: {
    200: callbackPage("Connected"),
    400: callbackPage("The link is unknown or used, or the code host sent no or a wrong code"),
    403: callbackPage("The person declined at the code host"),
    409: callbackPage("Started by another account than the one signed in in this browser"),
    410: callbackPage("Started more than 10 minutes ago"),
    500: callbackPage("Something went wrong on the server"),
    502: callbackPage("The code host failed"),
    503: callbackPage("This server cannot connect the code host"),
  },
});

export const repoCheck = defineOperation({
  id: "repoCheck.get",
  method: "GET",
  path: "/app/sites/:site_id/repo-check",
  tag: "Repository access",
  summary: "Read the project's repository at a ref and tell how it would be built (Dockerfile, automatic build, settings), without building it",
  auth: "token",
  params: siteParamsSchema,
  query: repoCheckQuerySchema,
  answers: { 200: { description: "What the repository holds", schema: repoCheckSchema } },
  errors: ["not_found", "invalid_request", "ref_not_found", "repo_too_large", ...HOST_ERRORS],
});
